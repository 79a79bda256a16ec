"""Extractive answers: cited sentences from top passages plus curated graph edges, no LLM.

Sentence choice: each of the top passages is split into sentences (spaCy's rule-based sentencizer on
a blank English pipeline); a sentence scores its cosine similarity to the question (same embedder as
retrieval) plus a bonus of 0.1 per question entity or evidence-path entity it names. The best sentence
of each passage becomes a claim citing that passage, in retrieval order. Graph claims come from the
PPR-scored subgraph: edges that touch a seed node, preferring the node kind the question asks for
("which compounds ..."), then curated indications (TREATS, then PALLIATES), then the highest PPR score
of the other endpoint. A graph claim keeps the edge's meaning (see :mod:`engram_kit.answering.assertions`):
subject before object, a negated assertion as ``"NOT: ..."`` (only present when retrieval was asked for
negated edges), a qualified one with its qualifiers, and a citation label naming the graph, predicate,
knowledge sources and publications (Hetionet keeps ``"Hetionet TREATS_CtD"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


from engram_kit.answering.assertions import VERB_PHRASES, assertion_text, edge_label, qualifier_terms
from engram_kit.answering.types import Answer, Citation, Claim
from engram_kit.embeddings import Embedder
from engram_kit.kg.profiles import profile_for
from engram_kit.retrieval.results import EdgeEvidence, PassageHit, RetrievalResult

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
    # Biolink kinds (KGX graphs); last, so Hetionet questions resolve exactly as before
    (r"\b(phenotyp|clinical (feature|sign))", "PhenotypicFeature"),
)

__all__ = ["KIND_CUES", "REL_PRIORITY", "VERB_PHRASES", "EdgeClaim", "ExtractiveComposer", "asked_kind",
           "split_sentences"]
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


@dataclass(frozen=True)
class EdgeClaim:
    """A graph claim with the edge it rests on and what a sentence restating it must keep.

    ``qualifier_terms`` are the qualifier values (CURIEs and names) of a qualified edge, any one of which a
    restating sentence must name (empty when unqualified); ``edge.negated`` means it must word the negation.
    """

    claim: Claim
    edge: EdgeEvidence
    qualifier_terms: tuple[str, ...] = ()


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
        return [item.claim for item in self.edge_claims(result)]

    def edge_claims(self, result: RetrievalResult) -> list[EdgeClaim]:
        """The graph claims of ``result`` (at most ``max_edges``), each with its edge (see module docstring).

        Edges touching a seed are ranked: asked node kind first, then curated indications, then the other
        endpoint's PPR. An edge between two seeds is one claim: Hetionet keeps its established rule (the
        edge stored with the smaller source id), a KGX graph keeps every directed edge and one per
        undirected pair. Negated edges appear only if the result's subgraph holds them
        (``retrieve(..., include_negated=True)``), worded ``"NOT: ..."``.
        """
        if result.subgraph_edges.empty or self.max_edges == 0:
            return []
        nodes = result.subgraph_nodes.set_index("id")
        seeds = set(nodes.index[nodes["is_seed"]])
        wanted = asked_kind(result.question)
        scored = []
        seen_pairs: set[tuple[frozenset[str], str]] = set()
        for order, edge in enumerate(result.edge_evidence()):
            source, target = edge.source, edge.target
            if source not in seeds and target not in seeds:
                continue
            other = target if source in seeds else source
            if other in seeds:  # an edge between two seeds: one claim per undirected pair
                if profile_for(result.graph).edges_stored_once:
                    if source > target:  # Hetionet's established rule (it stores each edge once), kept as is
                        continue
                elif not edge.directed:
                    pair = (frozenset((source, target)), edge.rel_type)
                    if pair in seen_pairs:
                        continue
                    seen_pairs.add(pair)
            if source not in nodes.index or target not in nodes.index:
                continue
            kind_match = nodes.at[other, "kind"] == wanted if wanted else False
            priority = REL_PRIORITY.get(edge.rel_type, len(REL_PRIORITY))
            scored.append((not kind_match, priority, -float(nodes.at[other, "ppr"]), source, target, edge.rel_type,
                           order, edge))
        scored.sort(key=lambda t: t[:7])
        # qualifier values named in the graph itself (an onset or frequency term held as a node)
        names = {str(node_id).partition("::")[2]: str(name) for node_id, name in nodes["name"].items()}
        claims = []
        for *_, edge in scored[: self.max_edges]:
            text = assertion_text(edge, str(nodes.at[edge.source, "name"]), str(nodes.at[edge.target, "name"]), names)
            ref = f"{edge.source} -[{edge.rel_type}]-> {edge.target}"
            claim = Claim(text, (Citation("edge", ref, edge_label(edge, result.graph_name)),))
            claims.append(EdgeClaim(claim, edge, qualifier_terms(edge, names)))
        return claims
