"""The evidence desk: investigate a question with bounded, read-only Cypher whose rows back every claim.

* :mod:`~engram_kit.evidence.guard` -- tokenizer-based read-only guard (writes, procedures, unbounded paths).
* :mod:`~engram_kit.evidence.runner` -- timeouts, row/size caps, per-run budgets, READ ONLY transactions.
* :mod:`~engram_kit.evidence.artifacts` -- query artifacts ``q1, q2, ...`` with rows ``r1..rn``.
* :mod:`~engram_kit.evidence.claims` -- row-cited claims and the validator (supported / partial / unsupported).
* :mod:`~engram_kit.evidence.templates` -- offline question shapes (Hetionet metaedges; schema-driven edge
  templates with provenance for any graph); :mod:`~engram_kit.evidence.desk` -- the desk.
"""

from engram_kit.evidence.artifacts import Artifact
from engram_kit.evidence.claims import OUTCOMES, ClaimCheck, DeskClaim, Validation, validate_claims
from engram_kit.evidence.desk import (
    OFFLINE_MODE,
    ClaimDraft,
    DeskResult,
    DraftClaim,
    EvidenceDesk,
    PlannedQuery,
    QueryParameter,
    QueryPlan,
    pick_template,
)
from engram_kit.evidence.guard import ALLOWED_PROCEDURES, MAX_HOPS, GuardedQuery, check_query, tokenize
from engram_kit.evidence.runner import DeskLimits, QueryRunner, execute_read_only
from engram_kit.evidence.schema import GraphSchema, inspect_schema
from engram_kit.evidence.search import EntityMatch, question_entities, search_entities
from engram_kit.evidence.templates import EDGE_TEMPLATES, TEMPLATES, EdgeTemplate, Template

__all__ = [
    "ALLOWED_PROCEDURES", "Artifact", "ClaimCheck", "ClaimDraft", "DeskClaim", "DeskLimits", "DeskResult",
    "DraftClaim", "EDGE_TEMPLATES", "EdgeTemplate", "EntityMatch", "EvidenceDesk", "GraphSchema", "GuardedQuery",
    "MAX_HOPS", "OFFLINE_MODE",
    "OUTCOMES", "PlannedQuery", "QueryParameter", "QueryPlan", "QueryRunner", "TEMPLATES", "Template",
    "Validation", "check_query", "execute_read_only", "inspect_schema", "pick_template", "question_entities",
    "search_entities", "tokenize", "validate_claims",
]
