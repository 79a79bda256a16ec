"""Sentence splitting for literature maps: :func:`engram_kit.text.split_sentences` (newlines end sentences).

Kept as the literature-map stage's import point; the splitter itself lives in :mod:`engram_kit.text`.
"""

from __future__ import annotations

from engram_kit.text import ABBREVIATIONS, Sentence, split_sentences

__all__ = ["ABBREVIATIONS", "Sentence", "split_sentences"]
