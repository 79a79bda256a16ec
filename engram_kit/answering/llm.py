"""Answers written by an LLM that may cite only the retrieved passages and graph edges, checked like any other.

**Structured protocol** (any provider but :class:`~engram_kit.llm.OfflineLLM`). The composer numbers the evidence
it shows the model: passages ``[P1]``.. in retrieval order, each split into sentences ``[P1.1]``, ``[P1.2]``..
(:func:`engram_kit.text.sentence_texts`), and knowledge-graph edges that touch a question entity ``[E1]``.. It
tells the model the question's type (:func:`~engram_kit.answering.structure.detect_question_type`, the offline
detector) and asks for one JSON object (:class:`StructuredReply`): the question type, the exact answer items
each with the sentence / edge ids it cites, a yes/no with the sentence ids it rests on, and short claims with
their ids. The reply is parsed strictly (pydantic, unknown keys refused; a Markdown code fence around it is the
one thing tolerated), then checked:

* a cited id that was not shown is dropped (named in the notes); a claim left with no shown id is **withheld**
  (not shown) and counted;
* every claim is checked against the sentence(s) it cites with the shared support rule
  (:func:`~engram_kit.answering.support.sentence_supports`: the sentence names a question entity and an item the
  claim states or the asked relation). A claim none of whose cited sentences supports it is **kept but flagged**
  (:attr:`Answer.unsupported <engram_kit.answering.types.Answer.unsupported>`, marked in ``to_markdown``, listed
  in ``to_dict``), and the notes count them;
* an exact item is kept only with at least one cited sentence or edge that names it next to a question entity
  (its citations are those); an item with none is **dropped** and the notes name it;
* a yes/no stands only if a cited sentence bears on the question
  (:func:`~engram_kit.answering.yesno.bears_on`); otherwise the answer is undecided, and says so.

A reply that is not valid structured JSON raises :class:`MalformedReplyError` inside the composer; by default
(``on_malformed="offline"``) the answer falls back to :class:`~engram_kit.llm.OfflineLLM` over the same evidence,
with a note naming the problem; ``on_malformed="raise"`` re-raises it.

**Text protocol** (:class:`~engram_kit.llm.OfflineLLM`, or ``structured=False``): sentences each ending with the
labels they rest on (``[P1]``, ``[P2, E1]``), as before; the same citation and support checks apply, and there
are no exact items (the offline provider cannot name one it was not given).

Graph evidence keeps its meaning (:mod:`engram_kit.answering.assertions`): a negated assertion is shown to
the model as ``"NOT: ..."`` and a qualified one with ``"(qualifiers: ...)"``. The check holds the model to
that: a sentence citing a negated edge must word a negation ("not", "no", "never", "n't", ...), and one
citing a qualified edge must name one of its qualifier values (CURIE or name); otherwise that citation is
dropped (and the sentence withheld if nothing else supports it), and the answer's notes say so. An exact item
never rests on a negated edge.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engram_kit.answering.assertions import states_negation, states_qualifier
from engram_kit.answering.extractive import EdgeClaim, ExtractiveComposer
from engram_kit.answering.structure import (
    defined_abbreviations,
    detect_question_type,
    headline,
    question_terms,
    relation_patterns,
)
from engram_kit.answering.support import names_term, sentence_supports
from engram_kit.answering.types import Answer, Citation, Claim, ExactAnswer, QuestionType, YesNo
from engram_kit.errors import LLMError
from engram_kit.llm.base import LLM
from engram_kit.llm.offline import OfflineLLM
from engram_kit.retrieval.results import RetrievalResult
from engram_kit.settings import Settings
from engram_kit.text import sentence_texts, split_statements

log = logging.getLogger(__name__)

#: System prompt of the text protocol (part of the request hash: changing it invalidates cassettes).
SYSTEM_PROMPT = (
    "You answer biomedical questions using ONLY the numbered evidence given. Write 2-6 short sentences. "
    "End every sentence with the labels of the evidence it rests on, e.g. [P1] or [P2, E1]. Never state "
    "anything the evidence does not say; if the evidence does not answer the question, say which part "
    "it does answer. Use only labels that appear in the evidence list. Evidence starting with NOT: is a "
    "negated assertion: say that it does not hold, never state it as a fact. Evidence with (qualifiers: ...) "
    "holds only under those qualifiers (frequency, onset, sex...): keep them in your sentence."
)
#: System prompt of the structured protocol (part of the request hash: changing it invalidates cassettes).
STRUCTURED_SYSTEM_PROMPT = (
    "You answer biomedical questions using ONLY the numbered evidence given. Reply with ONE JSON object and "
    "nothing else, with exactly these keys:\n"
    '"question_type": "yesno", "factoid", "list" or "summary" (the type given with the question);\n'
    '"exact": the answer items, best first, each {"text": the item as the evidence spells it, "cites": [ids]} '
    "(factoid: up to 5 candidates; list: every item the evidence supports; [] for yesno and summary);\n"
    '"yes_no": "yes", "no" or null (yesno questions only; null when the evidence does not decide);\n'
    '"yes_no_cites": [the sentence ids the yes/no rests on];\n'
    '"claims": 2-6 short sentences answering the question, each {"text": ..., "cites": [ids]}.\n'
    "Cite sentence ids (P1.2) and edge ids (E3) from the evidence list only; a cited sentence must name the item "
    "or state the claim it supports. Never state anything the evidence does not say; if it does not answer the "
    "question, say which part it does answer. Evidence starting with NOT: is a negated assertion: say that it "
    "does not hold, never give it as an answer item. Evidence with (qualifiers: ...) holds only under those "
    "qualifiers: keep them in the claim."
)
_LABEL_GROUP = re.compile(r"\[([A-Za-z]+\d+(?:\.\d+)?(?:\s*[,;]\s*[A-Za-z]+\d+(?:\.\d+)?)*)\]")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
#: Factoid answers keep at most this many ranked candidates (BioASQ scores the first five).
FACTOID_CANDIDATES: int = Settings.exact_factoid_max


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


# --- the structured reply ----------------------------------------------------------------------------------------
class ReplyItem(BaseModel):
    """One exact answer item of a reply: the item's text and the evidence ids it cites."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    cites: list[str] = Field(default_factory=list)


class ReplyClaim(BaseModel):
    """One claim of a reply: a short sentence and the evidence ids it cites."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    cites: list[str] = Field(default_factory=list)


class StructuredReply(BaseModel):
    """The JSON object the structured protocol asks for (see :data:`STRUCTURED_SYSTEM_PROMPT`)."""

    model_config = ConfigDict(extra="forbid")
    question_type: Literal["yesno", "factoid", "list", "summary"]
    exact: list[ReplyItem] = Field(default_factory=list)
    yes_no: Literal["yes", "no"] | None = None
    yes_no_cites: list[str] = Field(default_factory=list)
    claims: list[ReplyClaim] = Field(default_factory=list)


class MalformedReplyError(LLMError):
    """The model's reply is not the structured JSON answer asked for (see :func:`parse_reply`)."""


def parse_reply(text: str, *, source: str = "The LLM") -> StructuredReply:
    """Parse a structured reply strictly: one JSON object valid for :class:`StructuredReply` (unknown keys refused),
    optionally inside a Markdown code fence.

    Raises
    ------
    MalformedReplyError
        Naming the first problem (not JSON, a missing or mistyped key) and how the reply starts.
    """
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        return StructuredReply.model_validate_json(body)
    except ValidationError as exc:
        error = exc.errors()[0] if exc.errors() else {"msg": str(exc), "loc": ()}
        where = ".".join(str(p) for p in error.get("loc", ()))
        preview = " ".join(text.split())[:120]
        raise MalformedReplyError(
            f"{source} did not return the structured JSON answer asked for ({where + ': ' if where else ''}"
            f"{error['msg']}; the reply starts {preview!r}).") from exc


@dataclass(frozen=True)
class EvidenceItem:
    """One labelled piece of evidence shown to the model: its text, the citation it gives, and (a sentence) the
    label of its passage. ``edge`` is the graph claim of an ``E`` label."""

    label: str
    text: str
    citation: Citation
    passage: str = ""
    edge: EdgeClaim | None = None


class LLMComposer:
    """Compose a cited answer with any :class:`~engram_kit.llm.LLM` (see module docstring).

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
        Output token cap of the LLM call (1200: a list of ten cited items and six claims in JSON fits; a reply
        cut short is malformed JSON and falls back).
    structured : bool, optional
        Use the structured JSON protocol; default: yes, except for :class:`~engram_kit.llm.OfflineLLM` (which can
        only echo its input, so it answers by the text protocol).
    on_malformed : ``"offline"`` or ``"raise"``
        What a reply that is not valid structured JSON gives: an offline answer over the same evidence with a note
        (default), or :class:`MalformedReplyError`.

    Raises
    ------
    LLMError
        From the provider (no key, rate limit after retries, unrecorded replay request); MalformedReplyError
        with ``on_malformed="raise"``.
    """

    def __init__(self, llm: LLM, *, max_passages: int = 6, max_edges: int = 8, max_tokens: int = 1200,
                 structured: bool | None = None, on_malformed: Literal["offline", "raise"] = "offline") -> None:
        if on_malformed not in ("offline", "raise"):
            raise ValueError(f"on_malformed={on_malformed!r}: use 'offline' or 'raise'.")
        self.llm = llm
        self.max_passages = max_passages
        self.max_edges = max_edges
        self.max_tokens = max_tokens
        self.structured = not isinstance(llm, OfflineLLM) if structured is None else structured
        self.on_malformed = on_malformed

    @property
    def mode(self) -> str:
        return self.llm.name

    # --- evidence -------------------------------------------------------------------------------------------
    def evidence(self, result: RetrievalResult) -> dict[str, tuple[str, Citation]]:
        """Label -> (text shown to the model, citation) for the passages and edges of the text protocol. Edge
        texts are the graph claims with their labels (``"NOT: ..."`` for a negated edge, qualifiers kept)."""
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

    def structured_evidence(self, result: RetrievalResult) -> dict[str, EvidenceItem]:
        """Label -> :class:`EvidenceItem` of the structured protocol: each passage ``P<i>`` (its whole text), its
        sentences ``P<i>.<j>``, and the edges ``E<k>`` (texts as in :meth:`evidence`)."""
        items: dict[str, EvidenceItem] = {}
        for i, hit in enumerate(result.passages[: self.max_passages], start=1):
            citation = Citation("passage", hit.passage_id, hit.citation)
            items[f"P{i}"] = EvidenceItem(f"P{i}", " ".join(hit.text.split()), citation)
            for j, sentence in enumerate(sentence_texts(hit.text), start=1):
                items[f"P{i}.{j}"] = EvidenceItem(f"P{i}.{j}", " ".join(sentence.split()), citation, f"P{i}")
        for i, edge in enumerate(self._edge_claims(result), start=1):
            citation = edge.claim.citations[0]
            items[f"E{i}"] = EvidenceItem(f"E{i}", f"{edge.claim.text} ({citation.label}).", citation, edge=edge)
        return items

    def prompt(self, question: str, evidence: dict[str, tuple[str, Citation]]) -> str:
        """The user message of the text protocol: one evidence item per line, then ``Question: ...``."""
        lines = ["Evidence:"] + [f"[{label}] {text}" for label, (text, _) in evidence.items()]
        return "\n".join(lines) + f"\n\nQuestion: {question}"

    def structured_prompt(self, question: str, question_type: QuestionType, items: dict[str, EvidenceItem]) -> str:
        """The user message of the structured protocol: each passage's citation line then its numbered sentences,
        the edges, the detected question type, then ``Question: ...``."""
        lines = ["Evidence:"]
        for label, item in items.items():
            if label.startswith("P") and not item.passage:
                lines.append(f"[{label}] {item.citation.label}")
            elif item.passage:
                lines.append(f"  [{label}] {item.text}")
            else:
                lines.append(f"[{label}] {item.text}")
        return "\n".join(lines) + f"\n\nQuestion type: {question_type}\nQuestion: {question}"

    # --- composing ------------------------------------------------------------------------------------------
    def compose(self, result: RetrievalResult) -> Answer:
        """Ask the LLM and check its answer (see the module docstring)."""
        notes = [result.fallback] if result.fallback else []
        question_type = detect_question_type(result.question)
        if not result.passages[: self.max_passages] and not self._edge_claims(result):
            answer = Answer(result.question, [], self.mode, result, notes + ["0 claims withheld (no evidence found)."],
                            question_type=question_type)
            answer.headline = headline(question_type, empty="No evidence was found for this question.")
            return answer
        if not self.structured:
            return self._compose_text(result, self.llm, notes, question_type)
        items = self.structured_evidence(result)
        response = self.llm.complete(
            [{"role": "user", "content": self.structured_prompt(result.question, question_type, items)}],
            system=STRUCTURED_SYSTEM_PROMPT, max_tokens=self.max_tokens)
        try:
            reply = parse_reply(response.text, source=self.llm.name)
        except MalformedReplyError as error:
            exc = error
            if response.stop_reason == "max_tokens":
                exc = MalformedReplyError(f"{error} The reply was cut at max_tokens={self.max_tokens}: raise it.")
            if self.on_malformed == "raise":
                raise exc from error.__cause__
            log.warning("%s", exc)
            fallback = self._compose_text(result, OfflineLLM(), notes, question_type)
            fallback.mode = self.mode
            fallback.notes.insert(len(notes), f"{exc} Answered offline instead: the best-matching evidence "
                                              "sentences, with no exact answer from the model.")
            return fallback
        return self._compose_structured(result, reply, items, notes, question_type)

    def _compose_text(self, result: RetrievalResult, llm: LLM, notes: list[str],
                      question_type: QuestionType) -> Answer:
        """The text protocol: cited sentences, the citation and meaning checks, then the support flags."""
        evidence, edges = self._evidence(result)
        response = llm.complete([{"role": "user", "content": self.prompt(result.question, evidence)}],
                                system=SYSTEM_PROMPT, max_tokens=self.max_tokens)
        negated = {label for label, item in edges.items() if item.edge.negated}
        qualified = {label: item.qualifier_terms for label, item in edges.items() if item.qualifier_terms}
        claims, withheld, unknown, misread = self.check_meaning(response.text, evidence, negated=negated,
                                                                qualified=qualified)
        notes = notes + _citation_check_notes(withheld, unknown, misread)
        texts = {citation: text for text, citation in evidence.values()}
        checker = _SupportCheck(result)
        unsupported = [c for c in claims if not any(checker.claim(c.text, texts.get(x, ""), question_type)
                                                    for x in c.citations)]
        if unsupported:
            notes.append(_unsupported_note(len(unsupported)))
        answer = Answer(result.question, claims, self.mode, result, notes, question_type=question_type,
                        unsupported=unsupported)
        answer.headline = headline(question_type, empty=_no_exact(question_type))
        return answer

    def _compose_structured(self, result: RetrievalResult, reply: StructuredReply, items: dict[str, EvidenceItem],
                            notes: list[str], question_type: QuestionType) -> Answer:
        checker = _SupportCheck(result, [x.text for x in reply.exact])
        unknown: list[str] = []
        misread: list[str] = []

        def shown(cites: Sequence[str], statement: str | None) -> list[EvidenceItem]:
            """The shown evidence of ``cites`` (unknown ids and misread edges dropped and remembered)."""
            out = []
            for label in dict.fromkeys(c.strip().strip("[]") for c in cites):
                item = items.get(label)
                if item is None:
                    unknown.append(label)
                    continue
                edge = item.edge
                if edge is not None and statement is not None and (
                        (edge.edge.negated and not states_negation(statement))
                        or (edge.qualifier_terms and not states_qualifier(statement, edge.qualifier_terms))):
                    misread.append(label)
                    continue
                out.append(item)
            return out

        claims: list[Claim] = []
        unsupported: list[Claim] = []
        withheld = 0
        for reply_claim in reply.claims:
            cited = shown(reply_claim.cites, reply_claim.text)
            if not cited:
                withheld += 1
                log.info("Withheld uncited claim: %s", reply_claim.text[:120])
                continue
            claim = Claim(" ".join(reply_claim.text.split()), _citations(cited))
            claims.append(claim)
            if not any(checker.claim(claim.text, item.text, question_type) for item in cited):
                unsupported.append(claim)
        exact, dropped = self._exact(reply, question_type, shown, checker, result)
        yes_no: YesNo | None = None
        yes_no_citations: tuple[Citation, ...] = ()
        if question_type == "yesno":
            cited = [i for i in shown(reply.yes_no_cites, None) if i.edge is None or not i.edge.edge.negated
                     or reply.yes_no == "no"]
            backing = [i for i in cited if checker.yes_no(i.text)]
            if reply.yes_no is not None and backing:
                yes_no, yes_no_citations = reply.yes_no, _citations(backing)
            elif reply.yes_no is not None:
                notes = notes + [f"The model answered {reply.yes_no!r}, but none of the sentences it cites names the "
                                 "question's entities together (or one of them with the asked relation): undecided."]
        notes = notes + _citation_check_notes(withheld, unknown, misread)
        if unsupported:
            notes.append(_unsupported_note(len(unsupported)))
        if dropped:
            notes.append(f"Dropped exact answer item(s) no cited sentence or edge supports: {', '.join(dropped)}.")
        if reply.question_type != question_type:
            notes.append(f"The model read the question as {reply.question_type}; the detected type "
                         f"{question_type} is kept.")
        answer = Answer(result.question, claims, self.mode, result, notes, question_type=question_type, exact=exact,
                        yes_no=yes_no, yes_no_citations=yes_no_citations, unsupported=unsupported)
        answer.headline = headline(question_type, exact, yes_no, empty=_no_exact(question_type))
        return answer

    @staticmethod
    def _exact(reply: StructuredReply, question_type: QuestionType, shown, checker: _SupportCheck,
               result: RetrievalResult) -> tuple[list[ExactAnswer], list[str]]:
        """The reply's exact items that a cited sentence or edge supports (ranked as the model ranked them, score
        = reciprocal rank among the kept items), and the names of those dropped."""
        if question_type not in ("factoid", "list"):
            return [], []
        nodes = _node_names(result)
        kept: list[tuple[str, tuple[str, ...], str | None, tuple[Citation, ...]]] = []
        dropped: list[str] = []
        seen: set[str] = set()
        for item in reply.exact:
            text = " ".join(item.text.split())
            if text.lower() in seen:
                continue
            seen.add(text.lower())
            node_id, graph_name = nodes.get(text.lower(), (None, ""))
            synonyms = tuple(n for n in (graph_name,) if n and n != text)
            cited = [i for i in shown(item.cites, None) if i.edge is None or not i.edge.edge.negated]
            backing = [i for i in cited if checker.item(i.text, (text, *synonyms))]
            if not backing:
                dropped.append(text)
                continue
            kept.append((text, synonyms, node_id, _citations(backing)))
        if question_type == "factoid":
            kept = kept[:FACTOID_CANDIDATES]
        return [ExactAnswer(text, synonyms, node_id, round(1.0 / rank, 4), citations)
                for rank, (text, synonyms, node_id, citations) in enumerate(kept, start=1)], dropped

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
        """Keep the sentences of LLM output ``text`` (text protocol) that cite provided evidence, faithfully.

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


class _SupportCheck:
    """The shared support rule (:func:`~engram_kit.answering.support.sentence_supports`) bound to one question.

    ``question terms``: the resolved entities' mentions and names, and the abbreviations the passages define for
    them (:func:`~engram_kit.answering.structure.defined_abbreviations`). A claim's answer terms are the names it states
    besides the question's entities: the reply's exact items and the passages' linked mentions and graph-node
    names it names (so "X raises Y [P1.2]" is supported when P1.2 names X and Y, or X and the asked relation).
    """

    def __init__(self, result: RetrievalResult, exact_texts: Sequence[str] = ()) -> None:
        self.entities = list(result.entities)
        self.terms = question_terms(self.entities)
        self.terms += defined_abbreviations(self.terms, [hit.text for hit in result.passages])
        self.relations = relation_patterns(result.question, self.entities, result.graph_schema())
        self.question = result.question
        lowered = {t.lower() for t in self.terms}
        names = [*exact_texts, *(m for hit in result.passages for m in hit.entities)]
        if not result.subgraph_nodes.empty and "name" in result.subgraph_nodes:
            names += [str(n) for n in result.subgraph_nodes["name"]]
        self.candidates = [n for n in dict.fromkeys(names) if len(n) >= 3 and n.lower() not in lowered]

    def claim(self, claim_text: str, cited_text: str, question_type: QuestionType) -> bool:
        """Whether ``cited_text`` supports the claim ``claim_text``."""
        if not cited_text:
            return False
        stated = [n for n in self.candidates if names_term(claim_text, n)]
        if sentence_supports(cited_text, self.terms, stated, self.relations):
            return True
        return question_type == "yesno" and self.yes_no(cited_text)

    def item(self, cited_text: str, names: Sequence[str]) -> bool:
        """Whether ``cited_text`` names an exact item (one of ``names``) next to a question entity."""
        return sentence_supports(cited_text, self.terms, names, ())

    def yes_no(self, cited_text: str) -> bool:
        """Whether ``cited_text`` bears on the yes/no question: the exact layer's rule
        (:func:`engram_kit.answering.yesno.bears_on`)."""
        from engram_kit.answering.exact import keywords
        from engram_kit.answering.yesno import bears_on

        per_entity = [[t for t in (e.mention, e.name) if t and len(t) >= 2] for e in self.entities]
        return bears_on(cited_text, per_entity, keywords(self.question, self.terms), self.relations)


def _citations(items: Sequence[EvidenceItem]) -> tuple[Citation, ...]:
    """The distinct citations of ``items`` in order (sentences of one passage cite that passage once)."""
    return tuple(dict.fromkeys(i.citation for i in items))


def _node_names(result: RetrievalResult) -> dict[str, tuple[str, str]]:
    """Lower-cased graph name -> (node id, name) of the retrieved subgraph's nodes and the question's entities."""
    out: dict[str, tuple[str, str]] = {}
    nodes = result.subgraph_nodes
    if not nodes.empty and {"id", "name"} <= set(nodes.columns):
        for node_id, name in zip(nodes["id"], nodes["name"]):
            out.setdefault(str(name).lower(), (str(node_id), str(name)))
    for e in result.entities:
        out.setdefault(e.name.lower(), (e.node_id, e.name))
    return out


def _unsupported_note(n: int) -> str:
    return (f"{n} claim(s) flagged unsupported: none of the sentences they cite names a question entity together "
            "with what the claim states or the asked relation (kept, marked).")


def _no_exact(question_type: QuestionType) -> str:
    if question_type in ("factoid", "list"):
        return "No exact answer: no cited sentence or edge names an answer item next to the question's entities."
    return ""


__all__ = ["FACTOID_CANDIDATES", "STRUCTURED_SYSTEM_PROMPT", "SYSTEM_PROMPT", "EvidenceItem", "LLMComposer",
           "MalformedReplyError", "ReplyClaim", "ReplyItem", "StructuredReply", "parse_reply",
           "split_cited_sentences"]


def _citation_check_notes(withheld: int, unknown: list[str], misread: list[str]) -> list[str]:
    """The notes the citation check adds to an LLM answer (both protocols): claims withheld, labels not in the
    evidence, graph evidence restated without its negation or qualifiers."""
    notes = [f"{withheld} claim(s) withheld by the citation check (no provided evidence cited)."]
    if unknown:
        notes.append(f"Dropped citation labels not in the evidence: {', '.join(sorted(set(unknown)))}.")
    if misread:
        notes.append("Dropped citations of graph evidence restated without its negation or qualifiers: "
                     f"{', '.join(sorted(set(misread)))}.")
    return notes
