"""The evidence desk: investigate one question with bounded read-only Cypher and cite result rows.

Offline (no LLM) the desk finds the question's entities, picks the first matching
:mod:`~engram_kit.evidence.templates` shape ("Which pathways does TP53 participate in?" on Hetionet; "What
phenotypes does schizencephaly have?" or "Which diseases is HGNC:10848 related to?" on any graph whose schema
connects those labels), runs its queries and turns rows into claims. Edge-template rows carry each edge's
predicate, direction (subject/object), knowledge sources, publications, qualifiers and negation, and their
claims are worded with :func:`~engram_kit.answering.assertions.assertion_text` (``NOT: ...`` for a negated
assertion, which is only listed when asked for: ``include_negated=True`` or a question mentioning negation).

With an LLM the desk plans queries itself (the live schema and the resolved entities in the prompt), runs
them through the same guard, and writes claims citing rows. Either way the claims go through the same
validator (:mod:`engram_kit.evidence.claims`); with an LLM, withheld claims are sent back for at most
``DeskLimits.repair_turns`` (2) repair turns. The result reports the outcome and how many claims were withheld.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from engram_kit.answering.assertions import assertion_text
from engram_kit.answering.intent import Intent, parse_intent
from engram_kit.answering.types import Citation, ExactAnswer, QuestionType, YesNo
from engram_kit.errors import QueryError
from engram_kit.evidence.answer import desk_answer
from engram_kit.evidence.artifacts import Artifact
from engram_kit.evidence.claims import DeskClaim, Validation, validate_claims
from engram_kit.evidence.plans import distinct_target_names, evidence_words, plan_claims, plan_queries
from engram_kit.evidence.runner import DeskLimits, QueryRunner
from engram_kit.evidence.schema import GraphSchema, inspect_schema
from engram_kit.evidence.search import EntityMatch, matches_frame, question_entities, search_entities
from engram_kit.evidence.templates import (
    EDGE_TEMPLATES,
    LIST_LIMIT,
    TEMPLATES,
    EdgeQuery,
    EdgeTemplate,
    Template,
    template_cypher,
)
from engram_kit.extraction import EntityExtractor
from engram_kit.kg.profiles import profile_for
from engram_kit.kg.schema import require_schema
from engram_kit.kg.schema import GraphSchema as DomainSchema
from engram_kit.llm.base import LLM
from engram_kit.llm.offline import OfflineLLM
from engram_kit.resolution import EntityResolver
from engram_kit.retrieval.results import EdgeEvidence
from engram_kit.store.base import GraphStore

log = logging.getLogger(__name__)

#: Mode of an offline run.
OFFLINE_MODE = "offline-template"
#: A question asking about negated assertions (then edge templates list them too, flagged).
NEGATION_QUESTION = re.compile(r"\bnegat|\bnegative\b|\bexcluded\b|\bruled out\b", re.IGNORECASE)


# --- structured LLM outputs -----------------------------------------------------------------------------
class QueryParameter(BaseModel):
    """One ``$name`` parameter of a planned query (values are strings: node ids, names)."""

    name: str
    value: str


class PlannedQuery(BaseModel):
    """One query the LLM wants to run, and why."""

    purpose: str = Field(description="what this query finds out, one short sentence")
    cypher: str = Field(description="one read-only Cypher statement")
    parameters: list[QueryParameter] = Field(default_factory=list)


class QueryPlan(BaseModel):
    """The LLM's query plan for a question."""

    queries: list[PlannedQuery]


class DraftClaim(BaseModel):
    """One claim the LLM wrote, with the rows it cites (``q1:r2``)."""

    text: str
    citations: list[str]


class ClaimDraft(BaseModel):
    """The LLM's claims answering the question."""

    claims: list[DraftClaim]


PLAN_SYSTEM = (
    "You investigate a biomedical question against a property graph ({graph} plus a literature layer) "
    "with read-only Cypher in {dialect}. Rules: one MATCH ... RETURN statement per query; never write; start from "
    "the node ids given, as parameters ({{id: $id}}); variable-length patterns need an upper bound of at most 4 hops "
    "(e.g. *1..2); end each query with LIMIT 50 or less; return names (n.name) and ids. Plan at most "
    "{max_queries} queries.\n\nSchema:\n{schema}"
)
CLAIMS_SYSTEM = (
    "Answer the question with short factual claims taken ONLY from the query results shown. Every claim cites "
    "the result rows it rests on as q<n>:r<m> (e.g. q1:r3) and names the entities of those rows. Cite only rows "
    "that are shown. Do not add outside knowledge; if the results do not answer the question, return fewer claims."
)


@dataclass
class DeskResult:
    """Everything one desk run produced.

    Attributes
    ----------
    question : str
    mode : str
        :data:`OFFLINE_MODE` or the LLM's name.
    entities : list of EntityMatch
        Question entities (all candidates above the link threshold).
    artifacts : list of Artifact
        Every query sent (``q1``, ...), including refused and failed ones.
    validation : Validation
        Claims kept and withheld (with reasons); ``outcome`` derives from it.
    template : str
        Template used offline ("" with an LLM or when none matched).
    repair_turns : int
        LLM repair turns used (0-2).
    notes : list of str
    seconds : float
        Wall-clock time of the run.
    include_negated : bool
        Whether edge templates listed negated assertions (flagged ``negated = true``, claims ``NOT: ...``).
    question_type, exact, yes_no, yes_no_citations, headline
        The answer in the shared structure, from the rows the kept claims cite (:mod:`engram_kit.evidence.answer`;
        items cite ``Citation(kind="row", ref="q1:r3")``).
    """

    question: str
    mode: str
    entities: list[EntityMatch] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    validation: Validation = field(default_factory=Validation)
    template: str = ""
    repair_turns: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    include_negated: bool = False
    question_type: QuestionType = "summary"
    exact: list[ExactAnswer] = field(default_factory=list)
    yes_no: YesNo | None = None
    yes_no_citations: tuple[Citation, ...] = ()
    headline: str = ""

    @property
    def claims(self) -> list[DeskClaim]:
        """Claims that passed the validator."""
        return self.validation.kept

    @property
    def withheld_count(self) -> int:
        return len(self.validation.withheld)

    @property
    def outcome(self) -> str:
        """``supported``, ``partial`` or ``unsupported``."""
        return self.validation.outcome

    def claims_frame(self) -> pd.DataFrame:
        """Every checked claim: ``claim, citations, kept, reasons``."""
        return self.validation.to_frame()

    def artifacts_frame(self) -> pd.DataFrame:
        """One row per artifact: id, status, purpose, rows, truncation, seconds, text, error."""
        rows = [{"id": a.id, "status": a.status, "purpose": a.purpose, "rows": len(a.rows),
                 "truncated": a.truncation if a.truncated else "", "ms": round(a.seconds * 1000, 1),
                 "cypher": a.text, "error": a.error} for a in self.artifacts]
        return pd.DataFrame(rows, columns=["id", "status", "purpose", "rows", "truncated", "ms", "cypher", "error"])

    def entities_frame(self) -> pd.DataFrame:
        return matches_frame(self.entities)

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "mode": self.mode, "template": self.template, "outcome": self.outcome,
                "withheld": self.withheld_count, "repair_turns": self.repair_turns, "notes": self.notes,
                "seconds": self.seconds, "include_negated": self.include_negated,
                "question_type": self.question_type, "headline": self.headline, "yes_no": self.yes_no,
                "yes_no_citations": [asdict(c) for c in self.yes_no_citations],
                "exact": [asdict(x) for x in self.exact], "entities": [e.to_dict() for e in self.entities],
                "artifacts": [a.to_dict() for a in self.artifacts], "validation": self.validation.to_dict()}

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_frame(self) -> pd.DataFrame:
        """Every checked claim (= :meth:`claims_frame`)."""
        return self.claims_frame()

    def to_markdown(self, *, max_rows: int = 10) -> str:
        """Claims with row citations, outcome and withheld count, then the artifacts."""
        lines = [f"**Q:** {self.question}", ""] + ([f"**A:** {self.headline}", ""] if self.headline else [])
        lines += [f"**Outcome:** {self.outcome} ({len(self.claims)} claim(s) kept, {self.withheld_count} withheld; "
                 f"{self.mode}{', template ' + self.template if self.template else ''})", ""]
        lines += [f"> {note}" for note in self.notes]
        if self.notes:
            lines.append("")
        lines += [f"- {c.text} [{', '.join(c.citations)}]" for c in self.claims] or ["No supported claims."]
        for check in self.validation.withheld:
            lines.append(f"- ~~{check.claim.text}~~ (withheld: {'; '.join(check.reasons)})")
        lines += ["", "**Artifacts**", "```"] + [a.render(max_rows) for a in self.artifacts] + ["```"]
        return "\n".join(lines)


class EvidenceDesk:
    """Investigate questions against a workspace graph with bounded, read-only, cited queries.

    Parameters
    ----------
    store : GraphStore
        The workspace graph store (queries run read-only whatever its mode).
    extractor, resolver : the workspace's entity extractor and resolver.
    nodes : DataFrame
        Workspace node table (``id, kind, identifier, name``), for id look-ups.
    llm : LLM, optional
        Plans queries and writes claims; None (or an :class:`~engram_kit.llm.OfflineLLM`, which cannot plan)
        = offline templates, no repair turns.
    limits : DeskLimits
        Timeouts, caps and budgets.
    min_confidence : float
        Lowest resolver confidence of a question entity, in [0, 1].
    graph_name : str
        Display name of the graph for the LLM planner (workspace manifest ``knowledge_graph.name``); default
        ``"Hetionet v1.0"`` / ``"a Biolink KGX graph"`` from the store's schema.
    include_negated : bool
        Default of :meth:`investigate`: edge templates also list negated assertions (flagged). False: only
        when the question mentions negation.

    Examples
    --------
    >>> desk = ws.evidence_desk()                       # doctest: +SKIP
    >>> print(desk.investigate("What does metformin treat?").to_markdown())  # doctest: +SKIP
    >>> kgx_desk.investigate("What phenotypes does schizencephaly have?").claims_frame()  # doctest: +SKIP
    """

    def __init__(self, store: GraphStore, extractor: EntityExtractor, resolver: EntityResolver, nodes: pd.DataFrame,
                 *, llm: LLM | None = None, limits: DeskLimits | None = None, min_confidence: float = 0.5,
                 graph_name: str = "", include_negated: bool = False) -> None:
        self.store = store
        self.extractor = extractor
        self.resolver = resolver
        self.nodes = nodes
        self.llm = llm
        self.limits = limits or DeskLimits()
        self.min_confidence = min_confidence
        self.graph_name = graph_name
        self.include_negated = include_negated
        self._schema: GraphSchema | None = None
        self._names: dict[str, str] | None = None

    @property
    def graph_schema(self) -> DomainSchema:
        """The store's domain schema (Hetionet v1.0 when the store names none)."""
        return self.store.schema

    # --- tools --------------------------------------------------------------------------------------------
    def schema(self, *, refresh: bool = False) -> GraphSchema:
        """Labels, relationship types, properties and live counts (cached; ``refresh`` recounts)."""
        if self._schema is None or refresh:
            self._schema = inspect_schema(self.store, graph_name=self.graph_name)
        return self._schema

    def search(self, text: str, *, limit: int = 5) -> list[EntityMatch]:
        """Entities by node id, CURIE or name (see :func:`~engram_kit.evidence.search.search_entities`)."""
        return search_entities(text, self.resolver, self.nodes, limit=limit, schema=self.graph_schema)

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> Artifact:
        """Run one guarded query outside a run (its own budget) and return its artifact ``q1``."""
        return QueryRunner(self.store, self.limits).run(cypher, parameters, purpose="ad hoc")

    # --- a run ----------------------------------------------------------------------------------------------
    def investigate(self, question: str, *, include_negated: bool | None = None) -> DeskResult:
        """Answer ``question`` with cited claims (LLM plan if an LLM is set, else an offline template).

        Parameters
        ----------
        question : the question.
        include_negated : edge templates also list negated assertions, flagged ``negated = true`` and worded
            ``NOT: ...``. None: the desk's default, or True when the question mentions negation
            (:data:`NEGATION_QUESTION`). Paths never go through a negated edge either way.

        Raises
        ------
        QueryError
            If the question is empty.
        LLMError
            From the LLM provider (with an LLM only).
        """
        if not question or not question.strip():
            raise QueryError("The evidence desk needs a question, e.g. 'Which genes does BACE1 interact with?'.")
        started = time.perf_counter()
        if include_negated is None:
            include_negated = self.include_negated or bool(NEGATION_QUESTION.search(question))
        runner = QueryRunner(self.store, self.limits)
        entities = question_entities(question, self.extractor, self.resolver, min_confidence=self.min_confidence,
                                     schema=self.graph_schema, nodes=self.nodes)
        if self.llm is None or isinstance(self.llm, OfflineLLM):  # extractive: cannot plan, so templates
            result = self._offline(question, entities, runner, include_negated)
        else:
            result = self._with_llm(question, entities, runner, self.llm)
        result.notes[:0] = reading_notes(entities, self.min_confidence)
        result.artifacts = runner.artifacts
        stated = desk_answer(question, entities, result.claims, result.artifacts, result.notes, self._node_ids())
        result.question_type, result.exact, result.yes_no = stated.question_type, stated.exact, stated.yes_no
        result.yes_no_citations, result.headline = stated.yes_no_citations, stated.headline
        result.seconds = time.perf_counter() - started
        log.info("desk %r: %s, %d kept, %d withheld, %d queries, %.2f s", question, result.outcome,
                 len(result.claims), result.withheld_count, len(runner.artifacts), result.seconds)
        return result

    def _node_ids(self) -> dict[str, str]:
        """Lower-cased node name -> node id (the first node of a name), built once per desk."""
        if self._names is None:
            frame, self._names = self.nodes, {}
            if frame is not None and {"id", "name"} <= set(frame.columns):
                for node_id, name in zip(frame["id"].astype(str), frame["name"].astype(str)):
                    self._names.setdefault(name.lower(), node_id)
        return self._names

    # --- offline templates ---------------------------------------------------------------------------------
    def _offline(self, question: str, entities: list[EntityMatch], runner: QueryRunner,
                 include_negated: bool = False) -> DeskResult:
        schema = self.graph_schema
        intent = question_intent(question, entities, schema)
        if intent.known and not include_negated and not schema.negation_property:
            return self._offline_plan(question, entities, intent, runner)
        chosen = pick_template(question, entities, self.graph_schema)
        intent_note = ([f"Question intent not recognised offline ({intent.explanation}); "
                        "falling back to keyword templates."] if not intent.known else [])
        if chosen is None:
            names = ", ".join(f"{e.name} ({e.label})" for e in entities[:5]) or "none"
            example = self.graph_schema.profile.desk_example
            note = (f"No offline template matches this question (entities found: {names}). Offline the desk "
                    f"answers entity + relation questions such as {example}; use an LLM for other shapes.")
            return DeskResult(question, OFFLINE_MODE, entities, notes=intent_note + [note])
        template, entity = chosen
        if isinstance(template, EdgeTemplate):
            result = self._offline_edges(question, entities, template, entity, runner, include_negated)
            # A name with two readings that both fit ("holoprosencephaly": an HP phenotype and a MONDO disease):
            # when the chosen one has nothing, answer for the next reading of the same mention and say so.
            others = [e for e in entities if e.mention == entity.mention and e.node_id != entity.node_id
                      and template.fits(e.label) and e.label in self.graph_schema.labels] if not result.claims else []
            for other in others:
                retry = self._offline_edges(question, entities, template, other, runner, include_negated)
                if retry.claims:
                    retry.notes.insert(0, f"{entity.name} ({entity.node_id}) has no such edges; answered for the "
                                          f"other reading of '{entity.mention}': {other.name} ({other.node_id}).")
                    return retry
            return result
        statements = self.store.statements
        listing = runner.run(template_cypher(template.name, "list", statements, schema=self.graph_schema,
                                             limit=self.limits.list_limit),
                             {"id": entity.node_id},
                             purpose=f"{template.name}: {template.target_label} related to {entity.name}")
        count = runner.run(template_cypher(template.name, "count", statements, schema=self.graph_schema),
                           {"id": entity.node_id},
                           purpose=f"{template.name}: number of {template.target_label} related to {entity.name}")
        claims = template_claims(template, listing, count)
        notes = []
        total = _count_value(count)
        if listing.status == "ok" and not listing.rows:
            notes.append(f"Nothing found: no {template.target_label} is linked to {entity.name} ({entity.node_id}) "
                         f"by {template.rel_type} in this graph.")
        if total is not None and total > len(listing.rows):
            notes.append(f"Listing the first {len(listing.rows)} of {total}, ordered by evidence (sources, "
                         f"publications, unbiased; LIMIT {self.limits.list_limit}).")
        validation = validate_claims(claims, runner.artifacts)
        return DeskResult(question, OFFLINE_MODE, entities, validation=validation, template=template.name,
                          notes=intent_note + notes)

    def _offline_plan(self, question: str, entities: list[EntityMatch], intent: Intent,
                      runner: QueryRunner) -> DeskResult:
        """Answer from the question's intent (:mod:`engram_kit.evidence.plans`): listing + total, cited rows."""
        anchor = next((e for e in sorted(entities, key=lambda e: -e.confidence) if e.label == intent.anchor_label),
                      None)
        anchor_id, anchor_name = (anchor.node_id, anchor.name) if anchor else ("", "")
        listing_q, total_q = plan_queries(intent, anchor_id, anchor_name, self.graph_schema, self.store.statements,
                                          self.limits.top_n)
        listing = runner.run(listing_q.cypher, listing_q.parameters, purpose=listing_q.purpose)
        total = runner.run(total_q.cypher, total_q.parameters, purpose=total_q.purpose) if total_q else None
        claims, notes = plan_claims(intent, listing, total, anchor_name)
        notes.insert(0, f"Intent: {intent.explanation}")
        if listing.status == "ok" and not listing.rows and intent.hops:
            claims = []  # the total's zero is no answer: the note says the graph has none
        validation = validate_claims(claims, runner.artifacts)
        return DeskResult(question, OFFLINE_MODE, entities, validation=validation,
                          template="intent:" + intent.describe(), notes=list(dict.fromkeys(notes)))

    def _edge_query(self, runner: QueryRunner, query: EdgeQuery, ids: list[str], include_negated: bool,
                    limit: int) -> Artifact:
        """Run one ``entity_edges_*`` statement of the store's pack through the guard (filled for this schema)."""
        cypher = self.store.statements.statement(query.statement, schema=self.graph_schema, **dict(query.identifiers))
        return runner.run(cypher, {"ids": ids, "include_negated": include_negated, "limit": limit},
                          purpose=query.purpose)

    def _offline_edges(self, question: str, entities: list[EntityMatch], template: EdgeTemplate, entity: EntityMatch,
                       runner: QueryRunner, include_negated: bool) -> DeskResult:
        """An edge template: list the entity's edges (with provenance), or its two-hop paths, and cite rows."""
        schema = self.graph_schema
        path = bool(template.via_label)
        list_limit, path_limit = self.limits.list_limit, self.limits.path_limit
        first = [self._edge_query(runner, q, [entity.node_id], include_negated and not path, list_limit)
                 for q in template.queries(schema, entity.label, entity.name)]
        notes: list[str] = []
        if include_negated and not path:
            notes.append("Negated assertions are included: their rows say negated = true and their claims NOT.")
        if path:
            via = list(dict.fromkeys(_other_end(row, entity.node_id) for a in first for row in _rows(a)))
            hops = template.second_hop(schema) if via else []
            second = [self._edge_query(runner, q, via, False, path_limit) for q in hops]  # never through negations
            claims = path_claims(first, second, entity.node_id, list_limit)
            if not claims:
                notes.append(f"Nothing found: no path {entity.name} -> {template.via_label} -> {template.target_label} "
                             f"in this graph ({len(via)} {template.via_label} node(s) linked to {entity.name}).")
            if any(len(a.rows) >= path_limit for a in second):
                notes.append(f"Second hop cut at {path_limit} edges per query (LIMIT {path_limit}).")
        else:
            claims = [edge_claim(a, row_id) for a in first for row_id in a.row_ids]
            if all(a.status == "ok" and not a.rows for a in first):
                negation = (" (negated assertions left out; ask with include_negated=True)"
                            if schema.negation_property and not include_negated else "")
                notes.append(f"Nothing found: no {template.description or 'edges'} linked to {entity.name} "
                             f"({entity.node_id}) in this graph{negation}.")
        if any(len(a.rows) >= list_limit for a in first):
            notes.append(f"Listing the first {list_limit} edges per direction (LIMIT {list_limit}).")
        validation = validate_claims(claims, runner.artifacts)
        return DeskResult(question, OFFLINE_MODE, entities, validation=validation, template=template.name, notes=notes,
                          include_negated=include_negated and not path)

    # --- with an LLM ----------------------------------------------------------------------------------------
    def _with_llm(self, question: str, entities: list[EntityMatch], runner: QueryRunner, llm: LLM) -> DeskResult:
        schema = self.schema()
        graph = profile_for(schema.graph).graph_for_llm(schema.graph_name)
        plan = llm.structured([{"role": "user", "content": self._plan_prompt(question, entities)}], QueryPlan,
                              system=PLAN_SYSTEM.format(max_queries=self.limits.run_queries, graph=graph,
                                                        dialect=self.store.statements.prompt_note,
                                                        schema=schema.describe()),
                              max_tokens=1500)
        for planned in plan.queries[: self.limits.run_queries]:
            runner.run(planned.cypher, {p.name: p.value for p in planned.parameters}, purpose=planned.purpose)
        messages = [{"role": "user", "content": self._claims_prompt(question, runner.artifacts)}]
        draft = llm.structured(messages, ClaimDraft, system=CLAIMS_SYSTEM, max_tokens=1500)
        validation = validate_claims(_desk_claims(draft), runner.artifacts)
        turns = 0
        while validation.withheld and turns < self.limits.repair_turns:
            turns += 1
            messages = messages + [
                {"role": "assistant", "content": draft.model_dump_json()},
                {"role": "user", "content": _repair_prompt(validation)},
            ]
            draft = llm.structured(messages, ClaimDraft, system=CLAIMS_SYSTEM, max_tokens=1500)
            validation = validate_claims(_desk_claims(draft), runner.artifacts)
        return DeskResult(question, llm.name, entities, validation=validation, repair_turns=turns)

    @staticmethod
    def _plan_prompt(question: str, entities: list[EntityMatch]) -> str:
        lines = [f"Question: {question}", "", "Entities found in the question (id | name | label | confidence):"]
        lines += [f"- {e.node_id} | {e.name} | {e.label} | {e.confidence:.2f}" for e in entities] or ["- none"]
        return "\n".join(lines)

    @staticmethod
    def _claims_prompt(question: str, artifacts: list[Artifact]) -> str:
        body = "\n\n".join(a.render(timing=False) for a in artifacts) or "(no queries ran)"
        return f"Query results:\n\n{body}\n\nQuestion: {question}"


def question_intent(question: str, entities: list[EntityMatch], schema: DomainSchema | None = None) -> Intent:
    """The question's intent (:func:`~engram_kit.answering.intent.parse_intent`) with the desk's entities as
    anchors, most confident first."""
    ordered = sorted(entities, key=lambda e: -e.confidence)
    return parse_intent(question, [(e.mention, e.label) for e in ordered], require_schema(schema, "the desk's intent"))


def reading_notes(entities: list[EntityMatch], min_confidence: float) -> list[str]:
    """Notes saying how a question's entities were read when not by their own name at the floor: a name
    variant ("breast carcinoma" as breast cancer) or, when nothing reached ``min_confidence``, the best
    reading kept by the fallback (:func:`~engram_kit.evidence.search.question_entities`)."""
    notes = []
    best: dict[str, EntityMatch] = {}
    for e in entities:
        if e.mention not in best or e.confidence > best[e.mention].confidence:
            best[e.mention] = e
    fallback = bool(entities) and all(e.confidence < min_confidence for e in entities)
    for e in best.values():
        if e.method == "variant":
            notes.append(f"Read '{e.mention}' as {e.name} ({e.label}, {e.node_id}): a variant of the name.")
        elif fallback:
            notes.append(f"No name in the question matched at confidence {min_confidence:g}; read '{e.mention}' "
                         f"as {e.name} ({e.label}, {e.node_id}; {e.method} {e.confidence:.2f}).")
    return notes


def pick_template(question: str, entities: list[EntityMatch], schema: DomainSchema | None = None
                  ) -> tuple[Template | EdgeTemplate, EntityMatch] | None:
    """The first template whose cues match, that applies to ``schema`` (required: the store's) and whose source
    label has an entity: :data:`TEMPLATES` (Hetionet metaedges) first, then :data:`EDGE_TEMPLATES`. The most
    confident entity of a fitting label wins (ties: the first found, so an identifier written in the question
    wins over a name)."""
    schema = require_schema(schema, "pick_template()")
    for template in TEMPLATES:
        if not template.matches(question) or not template.applies_to(schema):
            continue
        fitting = [e for e in entities if e.label == template.source_label]
        if fitting:
            return template, max(fitting, key=lambda e: e.confidence)
    for edge_template in EDGE_TEMPLATES:
        if not edge_template.matches(question) or not edge_template.applies_to(schema):
            continue
        fitting = [e for e in entities if edge_template.fits(e.label) and e.label in schema.labels]
        if fitting:
            return edge_template, max(fitting, key=lambda e: e.confidence)
    return None


def _rows(artifact: Artifact) -> list[dict[str, Any]]:
    return [artifact.row(r) or {} for r in artifact.row_ids]


def _other_end(row: dict[str, Any], node_id: str) -> str:
    """The node at the other end of an edge row from ``node_id``."""
    return str(row.get("object_id") if row.get("subject_id") == node_id else row.get("subject_id"))


def row_edge(row: dict[str, Any]) -> EdgeEvidence:
    """The assertion of one ``entity_edges_*`` row (subject -> object as stored) with its provenance."""
    return EdgeEvidence.from_row({**row, "source": row.get("subject_id"), "target": row.get("object_id")})


def edge_claim(artifact: Artifact, row_id: str) -> DeskClaim:
    """One claim for one edge row, worded with its direction, qualifiers and negation
    (``"SHH (human) has phenotype Cleft palate"``; ``"NOT: ... (negated assertion, ...)"``)."""
    row = artifact.row(row_id) or {}
    text = assertion_text(row_edge(row), str(row.get("subject")), str(row.get("object")))
    return DeskClaim(text, (f"{artifact.id}:{row_id}",))


def path_claims(first: list[Artifact], second: list[Artifact], start: str,
                limit: int = LIST_LIMIT) -> list[DeskClaim]:
    """One claim per two-hop path ``start -> via -> target``: both assertions, citing both rows, in the
    order of the first-hop rows (at most ``limit`` paths, >= 1: the desk's ``list_limit``).

    ``first`` holds the edges of ``start`` (one end is ``start``, the other a via node); ``second`` the edges
    of those via nodes (one end is a via node).
    """
    via_nodes = {_other_end(row, start) for a in first for row in _rows(a)}
    onward: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for artifact in second:
        for row_id in artifact.row_ids:
            row = artifact.row(row_id) or {}
            via = str(row.get("subject_id")) if row.get("subject_id") in via_nodes else str(row.get("object_id"))
            if _other_end(row, via) != start:  # never back to where the path began
                onward.setdefault(via, []).append((f"{artifact.id}:{row_id}", row))
    claims: list[DeskClaim] = []
    for artifact in first:
        for row_id in artifact.row_ids:
            row = artifact.row(row_id) or {}
            first_text = assertion_text(row_edge(row), str(row.get("subject")), str(row.get("object")))
            for citation, hop in onward.get(_other_end(row, start), []):
                second_text = assertion_text(row_edge(hop), str(hop.get("subject")), str(hop.get("object")))
                claims.append(DeskClaim(f"{first_text}; {second_text}", (f"{artifact.id}:{row_id}", citation)))
                if len(claims) >= limit:
                    return claims
    return claims
    return claims


def template_claims(template: Template, listing: Artifact, count: Artifact) -> list[DeskClaim]:
    """One claim per listed row (in the listing's evidence order, its evidence in brackets as in
    :func:`~engram_kit.evidence.plans.plan_claims`), plus the count claim, each citing its row."""
    claims = []
    shown = distinct_target_names([(r, listing.row(r) or {}) for r in listing.row_ids])  # "Apoptosis" twice
    for row_id in listing.row_ids:
        row = listing.row(row_id) or {}
        text = template.phrase.format(source=row.get("source"), target=shown[row_id])
        evidence = evidence_words(row)
        claims.append(DeskClaim(text + (f" ({evidence})" if evidence else ""), (f"{listing.id}:{row_id}",)))
    total = _count_value(count)
    if total is not None:
        source = (count.row("r1") or {}).get("source")
        if source is not None:
            claims.append(DeskClaim(f"{source} has {total} {template.target_label} neighbour(s) via "
                                    f"{template.rel_type} in the graph", (f"{count.id}:r1",)))
    return claims


def _count_value(count: Artifact) -> int | None:
    row = count.row("r1")
    if row is None or row.get("n") is None:
        return None
    return int(row["n"])


def _desk_claims(draft: ClaimDraft) -> list[DeskClaim]:
    return [DeskClaim(c.text, tuple(c.citations)) for c in draft.claims]


def _repair_prompt(validation: Validation) -> str:
    lines = ["The validator withheld these claims:"]
    for check in validation.withheld:
        lines.append(f"- {json.dumps(check.claim.text)} citing {', '.join(check.claim.citations) or 'nothing'}: "
                     f"{'; '.join(check.reasons)}")
    lines.append("Return the complete corrected list of claims: fix the citations to rows that are shown and "
                 "support the claim, or drop the claim.")
    return "\n".join(lines)
