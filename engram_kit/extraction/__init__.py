"""Extraction stage: find entity mentions in text, offline.

A :class:`Lexicon` (Hetionet names + gene, Disease Ontology, DrugBank and MeSH synonyms) feeds an
Aho-Corasick :class:`Gazetteer`; scispaCy's abbreviation detector links short forms defined in the text
to their long forms; an installed scispaCy NER model can add spans. :class:`EntityExtractor` merges them
into :class:`Mention` records that the resolution stage links to graph entities.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engram_kit.extraction.abbreviations import Abbreviation, AbbreviationFinder
    from engram_kit.extraction.extractor import EntityExtractor
    from engram_kit.extraction.gazetteer import CURATED_GENE_STOPLIST, GENE_STOPLIST, Gazetteer
    from engram_kit.extraction.lexicon import (
        BUNDLED_SYNONYMS_DIR,
        SOURCES,
        Lexicon,
        LexiconEntry,
        load_node_table,
    )
    from engram_kit.extraction.mention import MENTION_METHODS, Mention
    from engram_kit.extraction.ner import DEFAULT_NER_MODEL, NerTagger, ner_model_available
    from engram_kit.extraction.normalize import normalize_name

#: Where each public name lives. Imported on first access (PEP 562) so that ``from engram_kit.extraction.lexicon
#: import Lexicon`` (a workspace open, ``engram info``) does not import spaCy, scispaCy and, through thinc, torch
#: (issue 30: 6 s of a 13.7 s ``engram info``).
_EXPORTS: dict[str, str] = {
    "Abbreviation": "abbreviations", "AbbreviationFinder": "abbreviations", "EntityExtractor": "extractor",
    "CURATED_GENE_STOPLIST": "gazetteer", "GENE_STOPLIST": "gazetteer", "Gazetteer": "gazetteer",
    "BUNDLED_SYNONYMS_DIR": "lexicon", "SOURCES": "lexicon", "Lexicon": "lexicon", "LexiconEntry": "lexicon",
    "load_node_table": "lexicon", "MENTION_METHODS": "mention", "Mention": "mention", "DEFAULT_NER_MODEL": "ner",
    "NerTagger": "ner", "ner_model_available": "ner", "normalize_name": "normalize",
}


def __getattr__(name: str) -> Any:  # any exported object
    """The public name ``name``, imported from its submodule on first access.

    Raises
    ------
    AttributeError
        If ``name`` is not exported by this package.
    """
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # resolved once: later look-ups are plain attribute reads
    return value


__all__ = [
    "Abbreviation",
    "AbbreviationFinder",
    "BUNDLED_SYNONYMS_DIR",
    "CURATED_GENE_STOPLIST",
    "DEFAULT_NER_MODEL",
    "EntityExtractor",
    "GENE_STOPLIST",
    "Gazetteer",
    "Lexicon",
    "LexiconEntry",
    "MENTION_METHODS",
    "Mention",
    "NerTagger",
    "SOURCES",
    "load_node_table",
    "ner_model_available",
    "normalize_name",
]
