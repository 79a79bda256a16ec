"""Synthesis agent: merges the other agents' findings into one answer, citing only what they returned.

The answer comes first, in the structure every answering path shares (:mod:`engram_kit.answering.structure`):
``question_type``, ``exact`` items, ``yes_no`` and a ``headline``, drawn from the agents' own evidence
(:func:`answer_structure`): the literature agent's exact items and yes/no when its composer gives them, and the
graph edges the agents cite that link a question entity, by the asked relation, to a node of the asked kind.

Offline (no LLM) the merge is deterministic: the first findings of each agent in the fixed order
of the agent registry (literature, pathway, drug, phenotype, then any other registered agent; up to ``AgentOptions.synthesis_findings``), duplicates by citation removed,
plus *cross-agent links*: graph entities named in a graph finding that also appear in a top literature
passage, which is where two independent kinds of evidence agree. The text states the answer, then which
finding numbers each agent contributed and the cross-agent links; it does not repeat the findings' text, which
the agents' own sections (and :meth:`SynthesisReport.to_markdown`) already show.

With an LLM, the numbered findings ``[F1] .. [Fn]`` (grouped by agent) are the only material the
model sees; it is asked for one paragraph whose every sentence ends with the ``[F#]`` markers it
rests on. The reply is streamed as ``answer_chunk`` events, then validated: a sentence citing no
finding, or an unknown one, is withheld (counted in ``withheld``), and each kept sentence becomes a
claim carrying the citations of the findings it cites.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from engram_kit.agents.base import AgentContext, Emit
from engram_kit.agents.events import AnswerChunkEvent, StatusEvent, SynthesisEvent
from engram_kit.agents.registry import agent_names, findings_of, registered
from engram_kit.answering import Answer, Claim
from engram_kit.answering.intent import Intent, parse_intent
from engram_kit.answering.structure import detect_question_type, headline
from engram_kit.answering.types import Citation, ExactAnswer, QuestionType, YesNo
from engram_kit.text import split_statements

if TYPE_CHECKING:
    from engram_kit.agents.graph import GraphQueries
    from engram_kit.retrieval.results import ResolvedEntity

_MARKER = re.compile(r"\[F(\d+)\]")

SYSTEM_PROMPT = (
    "You merge findings of specialised biomedical agents into one paragraph. Use only the numbered findings "
    "given. End every sentence with the markers of the findings it rests on, placed before its full stop, "
    "e.g. 'BACE1 cleaves APP [F2][F5].' Do not add facts, "
    "numbers or names that are not in the findings. If findings disagree, say so."
)


@dataclass(frozen=True)
class AgentFinding:
    """A finding handed to synthesis: its number ``F#``, the agent that produced it and the claim."""

    label: str
    agent: str
    claim: Claim


@dataclass
class SynthesisReport:
    """The merged answer.

    Attributes
    ----------
    text : Markdown paragraph(s) with ``[F#]`` markers.
    claims : kept statements, each with the citations of the findings it cites.
    findings : the numbered findings synthesis worked from.
    cross_links : entity names supported by both graph findings and literature passages.
    withheld : LLM sentences dropped by the validator (no or unknown ``[F#]``); 0 offline.
    mode : ``"deterministic"`` or the LLM provider name.
    question_type, exact, yes_no, yes_no_citations, headline : the answer in the shared structure
        (:func:`answer_structure`); ``headline`` is the first line a reader sees.
    """

    text: str
    claims: list[Claim]
    findings: list[AgentFinding]
    cross_links: list[str] = field(default_factory=list)
    withheld: int = 0
    mode: str = "deterministic"
    question_type: QuestionType = "summary"
    exact: list[ExactAnswer] = field(default_factory=list)
    yes_no: YesNo | None = None
    yes_no_citations: tuple[Citation, ...] = ()
    headline: str = ""

    def to_markdown(self) -> str:
        """The headline, the synthesis text, then the numbered findings with their citations."""
        lines = [f"**Answer:** {self.headline}", ""] if self.headline and self.mode != "deterministic" else []
        lines += [self.text, ""] if self.text else []
        lines += [f"- [{f.label}] ({f.agent}) {f.claim.text} [{'; '.join(x.label for x in f.claim.citations)}]"
                  for f in self.findings]
        return "\n".join(lines).strip() or "No synthesis."

    def to_frame(self) -> pd.DataFrame:
        """One row per finding: ``label, agent, claim, citations``."""
        return pd.DataFrame([{"label": f.label, "agent": f.agent, "claim": f.claim.text,
                              "citations": "; ".join(x.label for x in f.claim.citations)} for f in self.findings],
                            columns=["label", "agent", "claim", "citations"])

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "claims": [asdict(c) for c in self.claims],
                "findings": [{"label": f.label, "agent": f.agent, **asdict(f.claim)} for f in self.findings],
                "cross_links": self.cross_links, "withheld": self.withheld, "mode": self.mode,
                "question_type": self.question_type, "headline": self.headline, "yes_no": self.yes_no,
                "yes_no_citations": [asdict(c) for c in self.yes_no_citations],
                "exact": [asdict(x) for x in self.exact]}


def _ordered(results: dict[str, Any]) -> list[tuple[str, Any]]:
    """(agent, report) of the agents that returned one: registered agents in display order, then others."""
    names = [n for n in agent_names() if results.get(n) is not None]
    names += [n for n, r in results.items() if registered(n) is None and n != "synthesis" and r is not None]
    return [(n, results[n]) for n in names]


def _claims(agent: str, report: Any) -> list[Claim]:
    spec = registered(agent)
    return spec.claims(report) if spec is not None else findings_of(report)


def collect_findings(results: dict[str, Any], limit: int) -> list[AgentFinding]:
    """Number the agents' claims ``F1..Fn``: round-robin over the agents in registry order (literature, pathway,
    drug, phenotype, then any other) so every agent is represented, duplicates (same citations) dropped."""
    queues: list[tuple[str, list[Claim]]] = []
    for agent, result in _ordered(results):
        queues.append((agent, [c for c in _claims(agent, result) if c.citations]))  # uncited: never merged
    out: list[AgentFinding] = []
    seen: set[tuple[str, ...]] = set()
    while len(out) < limit and any(q for _, q in queues):
        for agent, queue in queues:
            while queue:
                claim = queue.pop(0)
                key = tuple(c.ref for c in claim.citations) or (claim.text,)
                if key not in seen:
                    seen.add(key)
                    out.append(AgentFinding(f"F{len(out) + 1}", agent, claim))
                    break
            if len(out) >= limit:
                break
    return out


def cross_links(results: dict[str, Any]) -> list[str]:
    """Names of graph entities in graph findings that also appear in the literature agent's passages, spelled as
    the graph findings spell them ("BACE1", "Alzheimer's disease"; matched case-insensitively), sorted
    case-insensitively."""
    answer = results.get("literature")
    if not isinstance(answer, Answer):
        return []
    mentioned = {m.lower() for p in answer.retrieval.passages for m in p.entities}
    texts = " ".join(c.text for agent, report in _ordered(results) if not isinstance(report, Answer)
                     for c in _claims(agent, report))
    found: dict[str, str] = {}
    for name in mentioned:
        match = re.search(rf"\b{re.escape(name)}\b", texts, re.IGNORECASE) if len(name) > 3 else None
        if match:
            found.setdefault(name, match.group(0))
    return sorted(found.values(), key=lambda n: (n.lower(), n))


_COUNT_QUESTION = re.compile(r"\bhow many\b|\bnumber of\b", re.IGNORECASE)
_EDGE_REF = re.compile(r"^(?P<source>.+?) -\[(?P<rel>[^\]]+)\]-> (?P<target>.+)$")


def answer_structure(question: str, entities: list[ResolvedEntity], results: dict[str, Any],
                     graph: GraphQueries | None = None) -> tuple[QuestionType, list[ExactAnswer], YesNo | None,
                                                                 tuple[Citation, ...], str]:
    """``(question_type, exact, yes_no, yes_no_citations, headline)`` of an investigation, from the agents' evidence.

    Exact items: every graph edge cited by any agent's claim that links a question entity by the asked relation
    (one hop of :func:`~engram_kit.answering.intent.parse_intent`) to a node of the asked kind, named by the graph,
    in the order the agents cite them; one item per node (its edges merged as its citations), score = reciprocal
    rank; where no agent cites such an edge, the literature agent's exact items, unless that answer says the
    graph holds nothing of the relation and nothing instead. Factoid: at most five. A
    count question ("How many ...") takes no items (a few names are not the total): its headline is the
    literature answer's note stating the graph's count. Yes/no: "yes" when a cited edge of the asked relation
    joins two question entities, else the literature agent's verdict when it gives one; otherwise undecided. Headline: the names or the yes/no, else the literature answer's own headline or its note
    that the graph has no answer.
    """
    question_type = detect_question_type(question)
    literature = results.get("literature")
    answer = literature if isinstance(literature, Answer) else None
    seeds = {e.node_id for e in entities}
    label_of = graph.label_of if graph is not None else (lambda node_id: node_id.split("::", 1)[0].replace(" ", ""))
    intent = parse_intent(question, [(e.mention, label_of(e.node_id)) for e in entities], graph.schema) \
        if graph is not None else Intent("", "")
    asked = {hop.rel_type for hop in intent.hops[:1]} if len(intent.hops) == 1 else set()
    items: dict[str, tuple[str, list[Citation]]] = {}
    joined: list[Citation] = []
    for agent, report in _ordered(results):
        for claim in _claims(agent, report):
            for citation in claim.citations:
                edge = _EDGE_REF.match(citation.ref) if citation.kind == "edge" else None
                if edge is None or edge["rel"] not in asked:
                    continue
                ends = (edge["source"], edge["target"])
                if all(end in seeds for end in ends):
                    joined.append(citation)
                    continue
                other = next((end for end, far in (ends, ends[::-1]) if far in seeds), None)
                if other is None or (intent.target_label and label_of(other) != intent.target_label):
                    continue
                cited = items.setdefault(other, (other, []))[1]
                if citation not in cited:
                    cited.append(citation)
    names = graph.names(list(items)) if graph is not None and items else {}
    # the curated edges the agents cite answer first; the literature answer's exact items only where no agent cites
    # an edge of the asked relation (its items beside a graph answer were co-mentions, not partners)
    exact = [ExactAnswer(names.get(node_id, node_id), (), node_id, 1.0, tuple(cited))
             for node_id, (_, cited) in items.items()]
    # the literature answer's items where no agent cites an edge of the asked relation, unless that answer says the
    # graph holds nothing of the relation and nothing instead: its items are then co-mentions, not answers
    # ("Which compounds could be repurposed for Alzheimer's disease via BACE1?" listed "brain" and "cognitive")
    graph_has_none = answer is not None and any(n.startswith("The graph has no") and "instead" not in n
                                                for n in answer.notes)
    if not exact and answer is not None and not graph_has_none:
        exact = list(answer.exact)
    counting = bool(_COUNT_QUESTION.search(question))
    if question_type not in ("factoid", "list") or counting:
        exact = []  # a count is not answered by a few names: the literature answer states the total
    exact = exact[:5] if question_type == "factoid" else exact
    exact = [ExactAnswer(x.text, x.synonyms, x.node_id, round(1.0 / rank, 4), x.citations)
             for rank, x in enumerate(exact, start=1)]
    yes_no: YesNo | None = None
    yes_no_citations: tuple[Citation, ...] = ()
    if question_type == "yesno":
        if joined:  # a curated edge of the asked relation between the question's entities decides first
            yes_no, yes_no_citations = "yes", tuple(dict.fromkeys(joined))
        elif answer is not None and answer.yes_no is not None:
            yes_no, yes_no_citations = answer.yes_no, answer.yes_no_citations
    why = ""
    if answer is not None:
        cue = r"\b\d+\b" if counting else r"^(The graph has no|Nothing found)"
        noted = next((n for n in answer.notes if re.search(cue, n)), "")
        # a count, or a relation asked that no cited edge answers: the note on the graph's answer comes first
        why = (noted or answer.headline) if counting or graph_has_none else (answer.headline or noted)
    if not why and question_type in ("factoid", "list"):
        why = "No exact answer: no agent's evidence links the question's entities to an answer by the asked relation."
    return question_type, exact, yes_no, yes_no_citations, headline(question_type, exact, yes_no, empty=why)


class SynthesisAgent:
    """See the module docstring."""

    name = "synthesis"

    def run(self, context: AgentContext, emit: Emit, results: dict[str, Any]) -> SynthesisReport:
        """Merge ``results`` (agent name -> report or :class:`Answer`) into a :class:`SynthesisReport`."""
        emit(StatusEvent(self.name, "merging agent findings"))
        findings = collect_findings(results, context.options.synthesis_findings)
        links = cross_links(results)
        question_type, exact, yes_no, yes_no_citations, line = answer_structure(
            context.question, list(context.entities), results, context.graph)
        if context.llm is None or not findings:
            report = self._deterministic(findings, links, line)
            for text in report.text.splitlines():
                emit(AnswerChunkEvent(self.name, text + "\n"))
        else:
            report = self._with_llm(context, emit, findings, links)
        report.question_type, report.exact, report.yes_no = question_type, exact, yes_no
        report.yes_no_citations, report.headline = yes_no_citations, line
        emit(SynthesisEvent(self.name, report))
        return report

    @staticmethod
    def _deterministic(findings: list[AgentFinding], links: list[str], answer: str = "") -> SynthesisReport:
        """The answer first, then which findings each agent gave (by number: their text is shown with the agents'
        own results and under this text in :meth:`SynthesisReport.to_markdown`), then the cross-agent links."""
        lines: list[str] = [f"**Answer:** {answer}"] if answer else []
        for agent in dict.fromkeys([*agent_names(), *(f.agent for f in findings)]):
            spec = registered(agent)
            heading = spec.heading if spec is not None else f"From the {agent} agent"
            mine = [f.label for f in findings if f.agent == agent]
            if mine:
                lines.append(f"**{heading}:** {len(mine)} finding(s), " + ", ".join(mine) + ".")
        if links:
            lines.append("**Supported by both the graph and the literature:** " + ", ".join(links) + ".")
        if not findings:
            lines.append("No agent returned evidence for this question.")
        return SynthesisReport("\n\n".join(lines), [f.claim for f in findings], findings, links, 0, "deterministic")

    def _with_llm(self, context: AgentContext, emit: Emit, findings: list[AgentFinding],
                  links: list[str]) -> SynthesisReport:
        llm = context.llm
        assert llm is not None
        blocks = []
        for agent in dict.fromkeys(f.agent for f in findings):
            lines = [f"[{f.label}] {f.claim.text.rstrip('.')}." for f in findings if f.agent == agent]
            blocks.append(f"{agent.capitalize()} agent findings:\n" + "\n".join(lines))
        numbered = "\n\n".join(blocks)
        prompt = f"{numbered}\n\nWrite the paragraph answering the question.\nQuestion: {context.question}"
        pieces: list[str] = []
        for chunk in llm.stream([{"role": "user", "content": prompt}], system=SYSTEM_PROMPT,
                                max_tokens=context.options.synthesis_max_tokens):
            pieces.append(chunk)
            emit(AnswerChunkEvent(self.name, chunk))
        text = "".join(pieces).strip()
        claims, withheld = validate_paragraph(text, findings)
        kept = " ".join(c.text for c in claims)
        return SynthesisReport(kept, claims, findings, links, withheld, llm.name)


def validate_paragraph(text: str, findings: list[AgentFinding]) -> tuple[list[Claim], int]:
    """Split an LLM paragraph into sentences; keep those citing only known ``[F#]`` markers.

    Sentences end at ``.``, ``!`` or ``?`` followed by white space and an upper-case letter, digit, bracket or
    quote (:func:`engram_kit.text.split_statements`, no abbreviation exceptions). A sentence's markers may trail it
    before the full stop (``"... APP [F2][F5]."``, as the prompt asks) or lead it (``"[F2] ..."``, as
    :class:`~engram_kit.llm.OfflineLLM` returns labelled context sentences).

    Returns
    -------
    (claims, withheld) : kept sentences (markers removed) as claims with the citations of the findings
        they cite, and the number of sentences withheld (no marker, or a marker naming no finding).
    """
    by_label = {f.label: f for f in findings}
    claims: list[Claim] = []
    withheld = 0
    for statement in split_statements(text):  # fail-closed splitting: see engram_kit.text.split_statements
        sentence = " ".join(statement.text.split())
        labels = [f"F{n}" for n in _MARKER.findall(sentence)]
        plain = re.sub(r"\s+([.,;!?])", r"\1", " ".join(_MARKER.sub(" ", sentence).split())).strip()
        if not plain or plain in {".", "-"}:
            continue
        if not labels or any(label not in by_label for label in labels):
            withheld += 1
            continue
        citations = tuple(dict.fromkeys(c for label in labels for c in by_label[label].claim.citations))
        claims.append(Claim(plain, citations))
    return claims, withheld
