"""Extraction stage: find entity mentions in text, offline.

A :class:`Lexicon` (Hetionet names + gene, Disease Ontology, DrugBank and MeSH synonyms) feeds an
Aho-Corasick :class:`Gazetteer`; scispaCy's abbreviation detector links short forms defined in the text
to their long forms; an installed scispaCy NER model can add spans. :class:`EntityExtractor` merges them
into :class:`Mention` records that the resolution stage links to graph entities.
"""

from __future__ import annotations

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
