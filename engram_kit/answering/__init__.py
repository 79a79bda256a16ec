"""Answer composition: turn a retrieval result into an answer whose every claim cites evidence.

The offline :class:`ExtractiveComposer` needs no LLM and never invents text: each claim is a sentence
copied from a retrieved passage (cited by PMID or document) or a curated knowledge-graph edge (cited by
relationship type and endpoint ids). LLM composers (a later stage) implement the same
:class:`AnswerComposer` protocol, so callers do not change.
"""

from engram_kit.answering.extractive import ExtractiveComposer
from engram_kit.answering.types import Answer, AnswerComposer, Citation, Claim, ExactAnswer, QuestionType, YesNo

__all__ = ["Answer", "AnswerComposer", "Citation", "Claim", "ExactAnswer", "ExtractiveComposer", "QuestionType",
           "YesNo"]
