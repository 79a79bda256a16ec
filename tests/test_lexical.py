"""BM25 index of the hybrid text score (engram_kit.retrieval.lexical): real abstract titles from the bundle."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("bm25s")

from engram_kit.retrieval.lexical import LexicalIndex, analysable


def test_hyphenated_symbol_matches_its_joined_form():
    # PMID:23465612's title writes "BACE-1"; a user asks about "BACE1" (newcomer run: rank 41 before the fix)
    titles = ["Discovery of dihydroisoquinoline BACE-1 inhibitors for the treatment of Alzheimer's disease.",
              "Acetylcholinesterase inhibitors and galanthamine in Alzheimer's disease.",
              "Interleukin IL-6 signalling in rheumatoid arthritis."]
    index = LexicalIndex(["a", "b", "c"], titles)
    scores = index.scores("Which genes does BACE1 interact with?")
    assert int(np.argmax(scores)) == 0 and scores[0] > 0 and scores[1] == 0
    assert index.scores("IL6 in arthritis")[2] > 0
    assert index.scores("BACE-1")[0] > 0  # the split form still matches


def test_analysable_appends_only_the_joined_forms():
    assert analysable("BACE-1 and IL-6 and COVID-19") == "BACE-1 and IL-6 and COVID-19 BACE1 IL6 COVID19"
    assert analysable("type 2 diabetes, follow-up at 12-month") == "type 2 diabetes, follow-up at 12-month"
