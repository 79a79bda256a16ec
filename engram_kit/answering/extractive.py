"""Extractive answers: cited sentences from top passages plus curated graph edges, no LLM.

Sentence choice: each of the top passages is split into sentences (spaCy's rule-based sentencizer on
a blank English pipeline); a sentence scores its cosine similarity to the question (same embedder as
retrieval) plus a bonus of 0.1 per question entity or evidence-path entity it names. The best sentence
of each passage becomes a claim citing that passage, in retrieval order. Graph claims come from the
PPR-scored subgraph: edges that touch a seed node, preferring the node kind the question asks for
("which compounds ..."), then curated indications (TREATS, then PALLIATES), then the highest PPR score
of the other endpoint.
"""

from __future__ import annotations

import re
from functools import lru_cache


from engram_kit.answering.types import Answer, Citation, Claim
from engram_kit.embeddings import Embedder
from engram_kit.kg.schema import METAEDGE_BY_REL_TYPE
from engram_kit.retrieval.results import PassageHit, RetrievalResult

#: Question words -> the node kind they ask about (first match wins, checked in this order).
KIND_CUES: tuple[tuple[str, str], ...] = (
    (r"\b(compound|drug|medication|medicine|treatment|therap|inhibitor|agent)", "Compound"),
    (r"\b(side effect|adverse)", "Side Effect"),
    (r"\b(symptom|present)", "Symptom"),
    (r"\b(pathway)", "Pathway"),
    (r"\b(process)", "Biological Process"),
    (r"\b(gene|protein|target|interact)", "Gene"),
    (r"\b(disease|disorder|condition|indication|treat)", "Disease"),
    (r"\b(tissue|anatom|organ)", "Anatomy"),
)


#: Metaedge verb -> phrase used in a graph claim ("Donepezil treats Alzheimer's disease").
VERB_PHRASES: dict[str, str] = {
    "associates": "is associated with", "interacts": "interacts with", "localizes": "localizes to",
    "participates": "participates in", "covaries": "covaries with", "resembles": "resembles",
}
#: Relationship types that answer a question best come first among edges to the asked kind:
#: curated indications before palliation, before everything else (lower = earlier).
REL_PRIORITY: dict[str, int] = {"TREATS_CtD": 0, "PALLIATES_CpD": 1}


@lru_cache(maxsize=1)
def _sentencizer():  # noqa: ANN202 - spaCy Language
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def split_sentences(text: str) -> list[str]:
    """Split text into sentences with spaCy's rule-based sentencizer (no model download)."""
    return [s.text.strip() for s in _sentencizer()(text).sents if len(s.text.strip()) > 20]


def asked_kind(question: str) -> str | None:
    """The node kind a question asks for, from cue words (see :data:`KIND_CUES`), or None."""
    q = question.lower()
    for pattern, kind in KIND_CUES:
        if re.search(pattern, q):
            return kind
    return None


class ExtractiveComposer:
    """Offline answer composer (see module docstring). Never writes a word that is not in evidence.

    Parameters
    ----------
    embedder : embeds question and candidate sentences (the retrieval embedder).
    max_passages : passages (in rank order) that contribute one sentence each, >= 1.
    max_edges : knowledge-graph edge claims, >= 0.
    """

    mode = "extractive"

    def __init__(self, embedder: Embedder, *, max_passages: int = 4, max_edges: int = 5) -> None:
        self.embedder = embedder
        self.max_passages = max_passages
        self.max_edges = max_edges

    def compose(self, result: RetrievalResult) -> Answer:
        """Compose the answer for ``result``; an empty result gives an answer with no claims."""
        notes = [result.fallback] if result.fallback else []
        claims = self._sentence_claims(result) + self._edge_claims(result)
        return Answer(result.question, claims, self.mode, result, notes)

    def _sentence_claims(self, result: RetrievalResult) -> list[Claim]:
        hits: list[PassageHit] = result.passages[: self.max_passages]
        candidates: list[tuple[int, str]] = [(i, s) for i, hit in enumerate(hits) for s in split_sentences(hit.text)]
        if not candidates:
            return []
        vectors = self.embedder.encode([result.question] + [s for _, s in candidates])
        similarity = vectors[1:] @ vectors[0]
        names = {e.mention.lower() for e in result.entities} | {e.name.lower() for e in result.entities}
        best: dict[int, tuple[float, str]] = {}
        for (i, sentence), sim in zip(candidates, similarity):
            path_names = {n.lower() for p in hits[i].paths for n in p.names} | {m.lower() for m in hits[i].entities}
            lowered = sentence.lower()
            bonus = 0.1 * sum(1 for n in names | path_names if n and n in lowered)
            score = float(sim) + bonus
            if i not in best or score > best[i][0]:
                best[i] = (score, sentence)
        claims = []
        for i, hit in enumerate(hits):
            if i in best:
                claims.append(Claim(best[i][1], (Citation("passage", hit.passage_id, hit.citation),)))
        return claims

    def _edge_claims(self, result: RetrievalResult) -> list[Claim]:
        if result.subgraph_edges.empty or self.max_edges == 0:
            return []
        nodes = result.subgraph_nodes.set_index("id")
        seeds = set(nodes.index[nodes["is_seed"]])
        wanted = asked_kind(result.question)
        scored = []
        for source, target, rel in result.subgraph_edges[["source", "target", "rel_type"]].itertuples(index=False):
            if source not in seeds and target not in seeds:
                continue
            other = target if source in seeds else source
            if other in seeds and source > target:
                continue  # an edge between two seeds: keep one orientation only
            kind_match = nodes.at[other, "kind"] == wanted if wanted else False
            priority = REL_PRIORITY.get(rel, len(REL_PRIORITY))
            scored.append((not kind_match, priority, -float(nodes.at[other, "ppr"]), source, target, rel))
        scored.sort()
        claims = []
        for *_, source, target, rel in scored[: self.max_edges]:
            meta = METAEDGE_BY_REL_TYPE.get(rel)
            verb = VERB_PHRASES.get(meta.verb, meta.verb) if meta else rel.lower()
            text = f"{nodes.at[source, 'name']} {verb} {nodes.at[target, 'name']}"
            ref = f"{source} -[{rel}]-> {target}"
            claims.append(Claim(text, (Citation("edge", ref, f"Hetionet {rel}"),)))
        return claims


