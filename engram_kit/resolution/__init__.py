"""Resolution stage: link mentions to Hetionet nodes with a confidence, and name NounPhrases.

:class:`EntityResolver` runs exact -> alias -> character 3-gram TF-IDF -> (optional) embedding matching and
returns ranked :class:`Candidate` records; :func:`nounphrase_id` gives the id under which a mention's
NounPhrase is merged across documents.
"""

from __future__ import annotations

from engram_kit.resolution.names import normalize_name, nounphrase_id
from engram_kit.resolution.resolver import (
    ABBREVIATION_FACTOR,
    ALIAS_CONFIDENCE,
    EXACT_CONFIDENCE,
    KIND_PRIORITY,
    RESOLUTION_METHODS,
    TFIDF_SCALE,
    Candidate,
    EntityResolver,
)
from engram_kit.resolution.tfidf import CharNgramIndex

__all__ = [
    "ABBREVIATION_FACTOR",
    "ALIAS_CONFIDENCE",
    "Candidate",
    "CharNgramIndex",
    "EXACT_CONFIDENCE",
    "EntityResolver",
    "KIND_PRIORITY",
    "RESOLUTION_METHODS",
    "TFIDF_SCALE",
    "normalize_name",
    "nounphrase_id",
]
