"""Abstractive answers written by an LLM that may cite only the retrieved passages and graph edges.

The composer numbers the evidence it shows the model (``[P1]``.. passages in retrieval order, ``[E1]``..
knowledge-graph edges that touch a question entity), asks for sentences each ending with the labels they
rest on, then checks the output: every sentence must cite at least one label that was provided. Unknown
labels are dropped from a sentence; a sentence left with no valid label is **withheld** (not shown as a
claim) and counted in the answer's notes, so the number of withheld claims is visible with every answer.

Graph evidence keeps its meaning (:mod:`engram_kit.answering.assertions`): a negated assertion is shown to
the model as ``"NOT: ..."`` and a qualified one with ``"(qualifiers: ...)"``. The check holds the model to
that: a sentence citing a negated edge must word a negation ("not", "no", "never", "n't", ...), and one
citing a qualified edge must name one of its qualifier values (CURIE or name); otherwise that citation is
dropped (and the sentence withheld if nothing else supports it), and the answer's notes say so.

With :class:`~engram_kit.llm.OfflineLLM` the "answer" is the best-matching evidence sentences with their
labels, so the same path works with no key.
"""

from __future__ import annotations

import logging
import re

from collections.abc import Mapping

from engram_kit.answering.assertions import states_negation, states_qualifier
from engram_kit.answering.extractive import EdgeClaim, ExtractiveComposer
from engram_kit.answering.types import Answer, Citation, Claim
from engram_kit.llm.base import LLM
from engram_kit.retrieval.results import RetrievalResult
from engram_kit.text import split_statements

log = logging.getLogger(__name__)

#: System prompt of the composer (part of the request hash: changing it invalidates cassettes).
SYSTEM_PROMPT = (
    "You answer biomedical questions using ONLY the numbered evidence given. Write 2-6 short sentences. "
    "End every sentence with the labels of the evidence it rests on, e.g. [P1] or [P2, E1]. Never state "
    "anything the evidence does not say; if the evidence does not answer the question, say which part "
    "it does answer. Use only labels that appear in the evidence list. Evidence starting with NOT: is a "
    "negated assertion: say that it does not hold, never state it as a fact. Evidence with (qualifiers: ...) "
    "holds only under those qualifiers (frequency, onset, sex...): keep them in your sentence."
)
_LABEL_GROUP = re.compile(r"\[([A-Za-z]+\d+(?:\s*[,;]\s*[A-Za-z]+\d+)*)\]")


def split_cited_sentences(text: str) -> list[tuple[str, list[str]]]:
    """Split LLM output into ``(sentence without labels, labels in order)`` pairs.

    Examples
    --------
    >>> split_cited_sentences("BACE1 cleaves APP [P1, E2]. It is a drug target.")
    [('BACE1 cleaves APP.', ['P1', 'E2']), ('It is a drug target.', [])]
    """
    out: list[tuple[str, list[str]]] = []
    for statement in split_statements(text):  # fail-closed splitting: see engram_kit.text.split_statements
        piece = " ".join(statement.text.split())
        labels = [label.strip() for group in _LABEL_GROUP.findall(piece) for label in re.split(r"[,;]", group)]
        sentence = " ".join(_LABEL_GROUP.sub(" ", piece).split())
        sentence = re.sub(r"\s+([.,;!?])", r"\1", sentence).strip()
        if sentence and sentence not in {".", "-"}:
            out.append((sentence, labels))
    return out


class LLMComposer:
    """Compose a cited abstractive answer with any :class:`~engram_kit.llm.LLM` (see module docstring).

    Parameters
    ----------
    llm : LLM
        Provider (Anthropic, offline, or a replay cassette).
    max_passages : int
        Top passages shown to the model as ``[P1]..``, >= 0.
    max_edges : int
        Knowledge-graph edges touching a question entity shown as ``[E1]..``, >= 0, chosen as
        :class:`~engram_kit.answering.ExtractiveComposer` chooses its edge claims.
    max_tokens : int
        Output token cap of the LLM call.

    Raises
    ------
    LLMError
        From the provider (no key, rate limit after retries, unrecorded replay request).
    """

    def __init__(self, llm: LLM, *, max_passages: int = 6, max_edges: int = 8, max_tokens: int = 700) -> None:
        self.llm = llm
        self.max_passages = max_passages
        self.max_edges = max_edges
        self.max_tokens = max_tokens

    @property
    def mode(self) -> str:
        return self.llm.name

    def evidence(self, result: RetrievalResult) -> dict[str, tuple[str, Citation]]:
        """Label -> (text shown to the model, citation) for the passages and edges offered. Edge texts are
        the graph claims with their labels (``"NOT: ..."`` for a negated edge, qualifiers kept)."""
        return self._evidence(result)[0]

    def _evidence(self, result: RetrievalResult) -> tuple[dict[str, tuple[str, Citation]], dict[str, EdgeClaim]]:
        shown: dict[str, tuple[str, Citation]] = {}
        for i, hit in enumerate(result.passages[: self.max_passages], start=1):
            shown[f"P{i}"] = (" ".join(hit.text.split()), Citation("passage", hit.passage_id, hit.citation))
        edges: dict[str, EdgeClaim] = {}
        for i, item in enumerate(self._edge_claims(result), start=1):
            citation = item.claim.citations[0]
            shown[f"E{i}"] = (f"{item.claim.text} ({citation.label}).", citation)
            edges[f"E{i}"] = item
        return shown, edges

    def prompt(self, question: str, evidence: dict[str, tuple[str, Citation]]) -> str:
        """The user message: one evidence item per line, then ``Question: ...``."""
        lines = ["Evidence:"] + [f"[{label}] {text}" for label, (text, _) in evidence.items()]
        return "\n".join(lines) + f"\n\nQuestion: {question}"

    def compose(self, result: RetrievalResult) -> Answer:
        """Ask the LLM, keep sentences citing provided evidence, withhold the rest (counted in notes)."""
        notes = [result.fallback] if result.fallback else []
        evidence, edges = self._evidence(result)
        if not evidence:
            return Answer(result.question, [], self.mode, result, notes + ["0 claims withheld (no evidence found)."])
        response = self.llm.complete([{"role": "user", "content": self.prompt(result.question, evidence)}],
                                     system=SYSTEM_PROMPT, max_tokens=self.max_tokens)
        negated = {label for label, item in edges.items() if item.edge.negated}
        qualified = {label: item.qualifier_terms for label, item in edges.items() if item.qualifier_terms}
        claims, withheld, unknown, misread = self.check_meaning(response.text, evidence, negated=negated,
                                                                qualified=qualified)
        notes.append(f"{withheld} claim(s) withheld by the citation check (no provided evidence cited).")
        if unknown:
            notes.append(f"Dropped citation labels not in the evidence: {', '.join(sorted(set(unknown)))}.")
        if misread:
            notes.append("Dropped citations of graph evidence restated without its negation or qualifiers: "
                         f"{', '.join(sorted(set(misread)))}.")
        return Answer(result.question, claims, self.mode, result, notes)

    @staticmethod
    def check(text: str, evidence: dict[str, tuple[str, Citation]], *, negated: set[str] | frozenset[str] = frozenset(),
              qualified: Mapping[str, tuple[str, ...]] | None = None) -> tuple[list[Claim], int, list[str]]:
        """``(claims kept, number withheld, unknown labels)`` for LLM output ``text`` (see :meth:`check_meaning`)."""
        return LLMComposer.check_meaning(text, evidence, negated=negated, qualified=qualified)[:3]  # type: ignore[return-value]

    @staticmethod
    def check_meaning(text: str, evidence: dict[str, tuple[str, Citation]], *,
                      negated: set[str] | frozenset[str] = frozenset(),
                      qualified: Mapping[str, tuple[str, ...]] | None = None,
                      ) -> tuple[list[Claim], int, list[str], list[str]]:
        """Keep the sentences of LLM output ``text`` that cite provided evidence, faithfully.

        Parameters
        ----------
        text : the model's output.
        evidence : label -> (text shown, citation), as :meth:`evidence` returns.
        negated : labels of negated graph assertions; a sentence may cite one only if it words a negation
            (:func:`~engram_kit.answering.assertions.states_negation`), so "X has Y" never rests on "NOT: X has Y".
        qualified : label -> qualifier terms of a qualified graph assertion; a sentence may cite it only if it
            names one of them (the bare triple is not what the edge says).

        Returns
        -------
        tuple
            ``(claims kept, number withheld, unknown labels, misread labels)``; misread = cited by a sentence
            that drops the negation or the qualifiers. A sentence whose every label is unknown or misread is
            withheld.
        """
        qualified = qualified or {}
        claims: list[Claim] = []
        withheld, unknown, misread = 0, [], []
        for sentence, labels in split_cited_sentences(text):
            unknown += [label for label in labels if label not in evidence]
            valid = []
            for label in dict.fromkeys(label for label in labels if label in evidence):
                if (label in negated and not states_negation(sentence)) or \
                        (label in qualified and not states_qualifier(sentence, qualified[label])):
                    misread.append(label)
                    log.info("Dropped %s from a sentence that drops its negation/qualifiers: %s", label, sentence[:120])
                    continue
                valid.append(label)
            if not valid:
                withheld += 1
                log.info("Withheld uncited claim: %s", sentence[:120])
                continue
            claims.append(Claim(sentence, tuple(evidence[label][1] for label in valid)))
        return claims, withheld, unknown, misread

    def _edge_claims(self, result: RetrievalResult) -> list[EdgeClaim]:
        """The extractive composer's graph claims (edges touching a seed, asked kind and curated indications
        first) with their edges, reused as evidence items; with ``max_passages=0`` it embeds nothing."""
        if self.max_edges == 0:
            return []
        edges_only = ExtractiveComposer(None, max_passages=0, max_edges=self.max_edges)  # type: ignore[arg-type]
        return edges_only.edge_claims(result)
