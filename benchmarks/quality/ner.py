"""Study ``ner``: entity recognition and linking on BC5CDR and NCBI-disease (issue 7, item 1).

What is measured
----------------
* **Mention-level recognition** of the offline pipeline (:class:`~engram_kit.extraction.EntityExtractor`:
  Aho-Corasick gazetteer over the Hetionet lexicon + in-text abbreviations), scored with nervaluate
  (Segura-Bedmar et al. SemEval-2013 schema; https://github.com/MantisAI/nervaluate) per gold type:

  - *strict*: same span and same type (nervaluate ``strict``), the BC5CDR / scispaCy convention;
  - *overlap*: the spans overlap and the type is the same (nervaluate ``ent_type``: full credit);
  - *partial*: nervaluate ``partial`` (exact span 1, overlapping span 1/2, type ignored).

* **Typing.** Our mentions carry Hetionet kinds, the corpora Chemical/Disease. A mention's kind is the
  kind of the resolver's top candidate (:class:`~engram_kit.resolution.EntityResolver` without an
  embedder, as ingestion does), mapped by :data:`KIND_TO_TYPE`: Compound -> Chemical; Disease, Symptom,
  Side Effect -> Disease. Mentions of other kinds (genes, anatomy, GO terms, pathways, pharmacologic
  classes) are not scored at all: they are neither true nor false positives, and their share is reported.
  Variants: *scorable-kind typing* (the first candidate whose kind maps to a gold type wins) and
  Pharmacologic Class -> Chemical.

* **Linking** where a gold MeSH id maps to Hetionet nodes: Disease Ontology MeSH cross-references
  (``disease/xrefs-slim.tsv``) for Disease nodes, the MeSH ids of the 438 Symptom nodes, and a *name bridge*
  (the MeSH descriptor name, from ``symptom/mesh-terms.tsv``, looked up in the lexicon among Hetionet
  names, DrugBank aliases, MeSH and DO synonyms, restricted to the kinds of the gold type). DrugBank ships no
  MeSH column, so compounds are only reachable by name; MeSH supplementary concepts (``C...`` ids) are not
  in the descriptor table and stay unmapped. Accuracy is reported (a) given the gold span (the resolver
  alone) and (b) end to end (a pipeline mention overlapping the gold one whose top candidate is right).

Published reference (not re-run): scispaCy ``en_ner_bc5cdr_md`` NER F1 84.28 on the BC5CDR test set
(Neumann et al., BioNLP 2019).
"""

from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.quality.common import (
    StudyOptions,
    StudyResult,
    grouped_bar_plot,
    markdown_table,
    output_name,
    write_report,
)
from benchmarks.quality.pubtator import PubTatorDocument, read_pubtator

log = logging.getLogger(__name__)

#: Corpus name -> (path under the shared data folder, documents in quick mode).
CORPORA: dict[str, tuple[str, int]] = {
    "BC5CDR": ("corpora/BC5CDR/CDR_TestSet.PubTator.txt", 60),
    "NCBI-disease": ("corpora/NCBI-disease/NCBItestset_corpus.txt", 20),
}
#: Split -> corpus name -> path under the shared data folder. ``test`` is :data:`CORPORA` (the numbers to
#: quote); develop against ``dev`` (or ``train``), never against ``test``.
SPLITS: dict[str, dict[str, str]] = {
    "test": {name: relative for name, (relative, _) in CORPORA.items()},
    "dev": {"BC5CDR": "corpora/BC5CDR/CDR_DevelopmentSet.PubTator.txt"},
    "train": {"BC5CDR": "corpora/BC5CDR/CDR_TrainingSet.trainonly.PubTator.txt"},
}  # NCBI-disease dev/train are left out: the shared development file has PMIDs with a trailing space
#: Gold type of the corpus -> scored type.
GOLD_TYPE: dict[str, str] = {
    "Chemical": "Chemical",
    "Disease": "Disease",
    "SpecificDisease": "Disease",
    "DiseaseClass": "Disease",
    "Modifier": "Disease",
    "CompositeMention": "Disease",
}
#: Scored types per corpus (NCBI-disease annotates diseases only: our chemicals there are not scored).
SCORED_TYPES: dict[str, tuple[str, ...]] = {"BC5CDR": ("Chemical", "Disease"), "NCBI-disease": ("Disease",)}
#: Hetionet kind -> scored type (the default mapping).
KIND_TO_TYPE: dict[str, str] = {"Compound": "Chemical", "Disease": "Disease", "Symptom": "Disease",
                                "Side Effect": "Disease"}
#: Variant that also scores pharmacologic classes ("anticonvulsants") as chemicals.
KIND_TO_TYPE_WITH_CLASSES: dict[str, str] = {**KIND_TO_TYPE, "Pharmacologic Class": "Chemical"}
#: Mention label (typed vocabulary, lower-cased NER label) -> scored type; the label wins over the kind.
LABEL_TO_TYPE: dict[str, str] = {"chemical": "Chemical", "disease": "Disease"}
#: Hetionet kinds a gold id of each type may link to.
LINK_KINDS: dict[str, frozenset[str]] = {
    "Chemical": frozenset({"Compound"}),
    "Disease": frozenset({"Disease", "Symptom", "Side Effect"}),
}
#: Lexicon sources the MeSH name bridge may use (no gene symbols or synonyms).
BRIDGE_SOURCES: frozenset[str] = frozenset({"name", "mesh", "do-synonym", "drugbank-alias"})
#: scispaCy NER models that would add rows when installed (none is a dependency).
SCISPACY_NER_MODELS: tuple[str, ...] = ("en_ner_bc5cdr_md", "en_ner_bionlp13cg_md")
#: Published reference row.
PUBLISHED = {"pipeline": "scispaCy en_ner_bc5cdr_md (published, not re-run)", "corpus": "BC5CDR",
             "type": "all", "strict F1": 0.8428}
TOP_ERRORS = 15
#: Name of the report being written (``ner`` for the test split, ``ner_<split>`` otherwise).
_STUDY_NAME = "ner"


@dataclass(frozen=True)
class PipelineConfig:
    """One evaluated pipeline variant."""

    name: str
    abbreviations: bool = True
    ner: str = "off"
    typing: str = "resolver"  # "resolver": top candidate's kind; "scorable": first candidate of a scored kind
    kind_map: dict[str, str] = field(default_factory=lambda: dict(KIND_TO_TYPE))
    ner_first: bool = False  # NER spans replace the dictionary mentions they overlap
    ner_only: bool = False  # the NER model's spans and labels alone (no gazetteer)


CONFIGS: tuple[PipelineConfig, ...] = (
    PipelineConfig("gazetteer only", abbreviations=False),
    PipelineConfig("gazetteer + abbreviations (questions, literature maps; ingestion before the term tagger)"),
    PipelineConfig("gazetteer + abbreviations, scorable-kind typing", typing="scorable"),
    PipelineConfig("gazetteer + abbreviations, + Pharmacologic Class as Chemical",
                   kind_map=dict(KIND_TO_TYPE_WITH_CLASSES)),
    # the ingestion default (INGESTION_NER): term spans where no dictionary mention overlaps
    PipelineConfig("gazetteer + abbreviations + BC5CDR-train terms (ingestion default)", ner="bc5cdr-terms"),
)
DEFAULT_CONFIG = CONFIGS[4].name
#: Rows of the bundled NER model (``engram_kit.extraction.ner.BUNDLED_NER``), run when its folder exists.
BUNDLED_NER_CONFIGS: tuple[PipelineConfig, ...] = (
    PipelineConfig("bundled NER bc5cdr-cnn alone", ner="bc5cdr-cnn", ner_only=True),
    PipelineConfig("default + bundled NER (gazetteer first, union)", ner="bc5cdr-cnn"),
    PipelineConfig("default + bundled NER (NER first)", ner="bc5cdr-cnn", ner_first=True),
)


@dataclass
class Predicted:
    """A pipeline mention with its kind and scored type (None: not scored)."""

    start: int
    end: int
    text: str
    kind: str | None
    label: str | None
    method: str
    top_node: str | None


# ------------------------------------------------------------------------------------------ resources
@dataclass
class Resources:
    """Lexicon, gazetteer, resolver and node table, built once per run."""

    lexicon: Any
    gazetteer: Any
    resolver: Any
    nodes: pd.DataFrame
    synonyms_dir: Path
    build_seconds: float


def build_resources() -> Resources:
    """The product's lexicon from the bundled data (all Hetionet nodes + Hetionet-restricted synonyms)."""
    from engram_kit.datasets import resolve_data_paths
    from engram_kit.extraction import Gazetteer, Lexicon, load_node_table
    from engram_kit.resolution import EntityResolver

    started = time.perf_counter()
    paths = resolve_data_paths()
    nodes = load_node_table(paths.nodes)
    lexicon = Lexicon.build(nodes, paths.synonyms_dir)
    gazetteer = Gazetteer(lexicon)
    resolver = EntityResolver(lexicon, nodes, max_candidates=50)
    return Resources(lexicon, gazetteer, resolver, nodes, paths.synonyms_dir, time.perf_counter() - started)


def installed_ner_models() -> dict[str, bool]:
    """scispaCy NER model -> installed?"""
    from engram_kit.extraction import ner_model_available

    return {model: ner_model_available(model) for model in SCISPACY_NER_MODELS}


# ------------------------------------------------------------------------------------------ prediction
def predict(resources: Resources, config: PipelineConfig, documents: Sequence[PubTatorDocument],
            progress: bool = False) -> list[list[Predicted]]:
    """Run one pipeline variant over the documents; one list of :class:`Predicted` per document."""
    from engram_kit.extraction import EntityExtractor

    texts = [d.text for d in documents]
    out: list[list[Predicted]] = []
    if config.ner_only:
        from engram_kit.extraction.ner import load_ner

        tagger = load_ner(config.ner)
        assert tagger is not None
        for text, spans in zip(texts, tagger.spans_many(texts)):
            out.append([Predicted(start, end, text[start:end], f"({label})", LABEL_TO_TYPE.get(label.lower()),
                                  "ner", None) for start, end, label in spans])
        return out
    extractor = EntityExtractor(resources.lexicon, abbreviations=config.abbreviations, ner=config.ner,
                                gazetteer=resources.gazetteer, ner_first=config.ner_first)
    for mentions in extractor.extract_many(texts, progress=progress):
        doc: list[Predicted] = []
        for mention in mentions:
            candidates = resources.resolver.resolve(mention)
            kinds = [c.kind for c in candidates] or list(mention.kinds)
            if config.typing == "scorable":
                kind = next((k for k in kinds if k in config.kind_map), kinds[0] if kinds else None)
            else:
                kind = kinds[0] if kinds else None
            label = config.kind_map.get(kind) if kind else None
            typed = LABEL_TO_TYPE.get(mention.label.lower()) if mention.label else None
            if typed is not None:  # a typed vocabulary term or NER label says the type
                label = typed
                kind = kind or f"({mention.label})"
            doc.append(Predicted(mention.start, mention.end, mention.text, kind, label, mention.method,
                                 candidates[0].node_id if candidates else None))
        out.append(doc)
    return out


# --------------------------------------------------------------------------------------------- scoring
def _entities_gold(documents: Sequence[PubTatorDocument]) -> list[list[dict[str, Any]]]:
    # nervaluate's spans are end-inclusive (its overlap test is `pred.start > true.end`), ours end-exclusive
    return [[{"label": GOLD_TYPE[m.type], "start": m.start, "end": m.end - 1} for m in d.mentions] for d in documents]


def _entities_pred(predicted: Sequence[Sequence[Predicted]], tags: Sequence[str]) -> list[list[dict[str, Any]]]:
    return [[{"label": p.label, "start": p.start, "end": p.end - 1} for p in doc if p.label in tags]
            for doc in predicted]


def score(documents: Sequence[PubTatorDocument], predicted: Sequence[Sequence[Predicted]],
          tags: Sequence[str]) -> list[dict[str, Any]]:
    """nervaluate scores per type and over all types.

    Returns
    -------
    list of dict
        One row per type (and ``all`` when there are several): gold, predicted, strict P/R/F1,
        overlap P/R/F1 (nervaluate ``ent_type``), partial F1.
    """
    from nervaluate import Evaluator

    gold = _entities_gold(documents)
    pred = _entities_pred(predicted, tags)
    results = Evaluator(gold, pred, tags=list(tags), loader="dict").evaluate()
    rows = []
    scopes: list[tuple[str, dict[str, Any]]] = [(t, results["entities"].get(t, {})) for t in tags]
    if len(tags) > 1:
        scopes.append(("all", results["overall"]))
    for name, res in scopes:
        if not res:
            continue
        strict, overlap, partial = res["strict"], res["ent_type"], res["partial"]
        rows.append({
            "type": name, "gold": strict.possible, "predicted": strict.actual,
            "strict P": strict.precision, "strict R": strict.recall, "strict F1": strict.f1,
            "overlap P": overlap.precision, "overlap R": overlap.recall, "overlap F1": overlap.f1,
            "partial F1": partial.f1,
        })
    return rows


# ------------------------------------------------------------------------------------------ error study
def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _variants(text: str) -> list[str]:
    """The text and simple English singular/plural variants of its last word (for the reach analysis)."""
    out = [text]
    low = text.lower()
    if low.endswith("ies"):
        out.append(text[:-3] + "y")
    if low.endswith("es"):
        out.append(text[:-2])
    if low.endswith("s"):
        out.append(text[:-1])
    else:
        out.append(text + "s")
    return out


def _in_lexicon(text: str, lexicon: Any, kinds: dict[str, str], gold_type: str) -> str | None:
    """``"exact"`` / ``"inflection"`` when the lexicon has the text (or a singular/plural) as a kind of ``gold_type``."""
    for i, form in enumerate(_variants(text)):
        if any(kinds.get(e.kind) == gold_type for e in lexicon.lookup(form)):
            return "exact" if i == 0 else "inflection"
    return None


def _fn_class(text: str, gold: tuple[int, int], gold_type: str, lexicon: Any, covering: list[Predicted]) -> str:
    same_span = [p for p in covering if (p.start, p.end) == gold]
    if same_span:
        p = same_span[0]
        if p.label is None:
            return f"same span found, kind out of scope ({p.kind or 'no candidate'})"
        return "same span found, other type"
    if covering:
        if all(p.label is None for p in covering):
            return "only an out-of-scope match overlaps (e.g. Anatomy 'heart' in 'heart failure')"
        return "span error (overlapping match of a scored kind)"
    reach = _in_lexicon(text, lexicon, KIND_TO_TYPE, gold_type)
    if reach == "exact":
        return "surface in lexicon, not matched (case rule, stoplist)"
    if reach == "inflection":
        return "singular/plural of a lexicon entry"
    if lexicon.lookup(text):
        return "surface in lexicon only under an out-of-scope kind (gene synonym...)"
    stripped = text.strip()
    if len(stripped) <= 6 and " " not in stripped and sum(c.isupper() for c in stripped) >= 2:
        return "abbreviation / short form not resolved"
    return "not in lexicon"


def error_analysis(documents: Sequence[PubTatorDocument], predicted: Sequence[Sequence[Predicted]],
                   tags: Sequence[str], lexicon: Any) -> dict[str, Any]:
    """Error classes and their most frequent surfaces (strict scoring; own span matching for the analysis).

    Classes: false positives without any overlapping gold mention (``spurious``); span errors (a scored
    prediction overlaps a gold mention of the same type with other boundaries); type errors (same span or
    overlap, other type); false negatives split by :func:`_fn_class`.
    """
    fp: Counter[str] = Counter()
    fp_kind: dict[str, Counter[str]] = defaultdict(Counter)
    boundary: Counter[str] = Counter()
    type_err: Counter[str] = Counter()
    fn_class: Counter[str] = Counter()
    fn_examples: dict[str, Counter[str]] = defaultdict(Counter)
    for doc, preds in zip(documents, predicted):
        golds = [(m.start, m.end, GOLD_TYPE[m.type], m.text) for m in doc.mentions]
        scored = [p for p in preds if p.label in tags]
        exact = {(g[0], g[1], g[2]) for g in golds}
        for p in scored:
            if (p.start, p.end, p.label) in exact:
                continue
            hits = [g for g in golds if _overlap((p.start, p.end), (g[0], g[1]))]
            if not hits:
                fp[p.text.lower()] += 1
                fp_kind[p.text.lower()][p.kind or "?"] += 1
            elif any(g[2] == p.label for g in hits):
                g = next(g for g in hits if g[2] == p.label)
                boundary[f"{p.text} -> {g[3]}"] += 1
            else:
                type_err[f"{p.text} ({p.kind} -> {p.label}; gold {hits[0][2]})"] += 1
        for g in golds:
            if any(p.start == g[0] and p.end == g[1] and p.label == g[2] for p in scored):
                continue
            covering = [p for p in preds if _overlap((p.start, p.end), (g[0], g[1]))]
            klass = _fn_class(g[3], (g[0], g[1]), g[2], lexicon, covering)
            fn_class[klass] += 1
            fn_examples[klass][g[3].lower()] += 1
    reach: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in documents:
        for m in doc.mentions:
            gtype = GOLD_TYPE[m.type]
            if gtype in tags:
                reach[gtype]["gold"] += 1
                reach[gtype][_in_lexicon(m.text, lexicon, KIND_TO_TYPE, gtype) or "no"] += 1
    reach_rows = [{"type": t, "gold": c["gold"], "surface in lexicon (scored kind)": c["exact"] / c["gold"],
                   "+ singular/plural": (c["exact"] + c["inflection"]) / c["gold"]} for t, c in sorted(reach.items())]
    return {"fp": fp, "fp_kind": fp_kind, "boundary": boundary, "type": type_err, "fn_class": fn_class,
            "fn_examples": fn_examples, "reach": reach_rows}


# ---------------------------------------------------------------------------------------------- linking
def read_mesh_names(shared_data: Path, synonyms_dir: Path) -> dict[str, str]:
    """MeSH descriptor id -> name: the full descriptor table when the shared data has it, else the bundled one."""
    frames = []
    for folder in (synonyms_dir, shared_data / "synonyms"):
        for name in ("symptom/mesh-terms.tsv", "symptom/symptoms.tsv"):
            path = folder / name
            if path.is_file():
                frames.append(pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)[["mesh_id", "mesh_name"]])
    if not frames:
        return {}
    table = pd.concat(frames).drop_duplicates("mesh_id")
    return dict(zip(table["mesh_id"], table["mesh_name"]))


@dataclass
class MeshBridge:
    """Gold MeSH id -> Hetionet nodes, with the route of each mapping."""

    nodes: dict[str, dict[str, set[str]]]  # mesh id -> route -> node ids
    n_descriptor_names: int

    def map(self, mesh_id: str, gold_type: str) -> dict[str, set[str]]:
        allowed = LINK_KINDS[gold_type]
        routes = self.nodes.get(mesh_id, {})
        out = {r: {n for n in ns if n.partition("::")[0] in allowed} for r, ns in routes.items()}
        return {r: ns for r, ns in out.items() if ns}


def build_mesh_bridge(resources: Resources, shared_data: Path) -> MeshBridge:
    """MeSH -> Hetionet by DO xrefs, Symptom ids and the descriptor-name bridge (module docstring)."""
    from engram_kit.extraction.lexicon import uninvert_mesh_name

    nodes: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    kinds = dict(zip(resources.nodes["id"], resources.nodes["kind"]))
    xrefs = resources.synonyms_dir / "disease" / "xrefs-slim.tsv"
    if xrefs.is_file():
        table = pd.read_csv(xrefs, sep="\t", dtype=str, keep_default_na=False)
        for doid, resource, mesh_id in table[["doid_code", "resource", "resource_id"]].itertuples(index=False):
            node = f"Disease::{doid}"
            if resource == "MSH" and node in kinds:
                nodes[mesh_id]["DO xref"].add(node)
    for node_id, kind in kinds.items():
        if kind == "Symptom":
            nodes[node_id.partition("::")[2]]["Symptom id"].add(node_id)
    names = read_mesh_names(shared_data, resources.synonyms_dir)
    for mesh_id, name in names.items():
        for form in (name, uninvert_mesh_name(name)):
            if not form:
                continue
            for entry in resources.lexicon.lookup(form):
                if entry.source in BRIDGE_SOURCES:
                    nodes[mesh_id]["name bridge"].add(entry.node_id)
    return MeshBridge({k: dict(v) for k, v in nodes.items()}, len(names))


def linking_study(documents: Sequence[PubTatorDocument], predicted: Sequence[Sequence[Predicted]],
                  resources: Resources, bridge: MeshBridge, resolver: Any | None = None) -> dict[str, Any]:
    """Coverage of the MeSH bridge and linking accuracy, per scored gold type.

    Returns
    -------
    dict
        ``coverage``: rows per type (gold mentions, with ids, mappable, by route, unique ids mappable);
        ``accuracy``: rows per type (given gold span acc@1 and recall@5; end-to-end accuracy among
        mappable gold mentions, and among those detected); ``errors``: Counter of wrong links.
    """
    resolver = resolver or resources.resolver
    cov: dict[str, Counter[str]] = defaultdict(Counter)
    ids_all: dict[str, set[str]] = defaultdict(set)
    ids_ok: dict[str, set[str]] = defaultdict(set)
    acc: dict[str, Counter[str]] = defaultdict(Counter)
    wrong: Counter[str] = Counter()
    cache: dict[str, list[str]] = {}
    for doc, preds in zip(documents, predicted):
        for m in doc.mentions:
            gtype = GOLD_TYPE[m.type]
            c = cov[gtype]
            c["gold mentions"] += 1
            if not m.ids:
                continue
            c["with MeSH/OMIM id"] += 1
            routes: dict[str, set[str]] = {}
            for mesh_id in m.ids:
                ids_all[gtype].add(mesh_id)
                for route, ns in bridge.map(mesh_id, gtype).items():
                    routes.setdefault(route, set()).update(ns)
                    ids_ok[gtype].add(mesh_id)
            if not routes:
                continue
            c["mappable"] += 1
            for route in routes:
                c[f"via {route}"] += 1
            targets = set().union(*routes.values())
            if m.text not in cache:
                cache[m.text] = [cand.node_id for cand in resolver.resolve(m.text)]
            ranked = cache[m.text]
            a = acc[gtype]
            a["mappable"] += 1
            a["gold span: top-1 correct"] += bool(ranked) and ranked[0] in targets
            a["gold span: correct in top 5"] += any(n in targets for n in ranked[:5])
            a["gold span: no candidate"] += not ranked
            if ranked and ranked[0] not in targets:
                wrong[f"{m.text} -> {resources.lexicon.node_names.get(ranked[0], ('?', '?'))[0]} "
                      f"({ranked[0].partition('::')[0]}); gold {', '.join(sorted(targets))[:60]}"] += 1
            covering = [p for p in preds if _overlap((p.start, p.end), (m.start, m.end))]
            if covering:
                a["detected (overlap)"] += 1
                a["end to end: top-1 correct"] += any(p.top_node in targets for p in covering)
    coverage_rows, accuracy_rows = [], []
    for gtype in sorted(cov):
        c = cov[gtype]
        row: dict[str, Any] = {"type": gtype, "gold mentions": c["gold mentions"], "with id": c["with MeSH/OMIM id"],
                               "mappable": c["mappable"],
                               "mappable share": c["mappable"] / c["gold mentions"] if c["gold mentions"] else 0.0}
        for route in ("DO xref", "Symptom id", "name bridge"):
            row[f"via {route}"] = c[f"via {route}"]
        row["unique ids mappable"] = f"{len(ids_ok[gtype])} / {len(ids_all[gtype])}"
        coverage_rows.append(row)
        a = acc[gtype]
        n = a["mappable"]
        if n:
            accuracy_rows.append({
                "type": gtype, "mappable gold": n,
                "gold span acc@1": a["gold span: top-1 correct"] / n,
                "gold span recall@5": a["gold span: correct in top 5"] / n,
                "gold span no candidate": a["gold span: no candidate"] / n,
                "detected (overlap)": a["detected (overlap)"] / n,
                "end-to-end acc": a["end to end: top-1 correct"] / n,
                "acc among detected": (a["end to end: top-1 correct"] / a["detected (overlap)"]
                                       if a["detected (overlap)"] else 0.0),
            })
    return {"coverage": coverage_rows, "accuracy": accuracy_rows, "errors": wrong}


# ------------------------------------------------------------------------------------------------ study
def _kind_shares(predicted: Sequence[Sequence[Predicted]], kind_map: dict[str, str]) -> list[dict[str, Any]]:
    counts = Counter(p.kind or "(no candidate)" for doc in predicted for p in doc)
    total = sum(counts.values()) or 1
    return [{"kind": k, "mentions": n, "share": n / total, "scored as": kind_map.get(k, "not scored")}
            for k, n in counts.most_common()]


def _top(counter: Counter[str], n: int = TOP_ERRORS) -> str:
    return ", ".join(f"{k} ({v})" for k, v in counter.most_common(n)) or "none"


def ner_model_available(model: str) -> bool:
    """Whether a NER model or registered backend can be loaded here."""
    from engram_kit.extraction import ner_model_available as available

    return available(model)


def run(options: StudyOptions, split: str = "test", embedding: bool = True) -> StudyResult:
    """Run the study and write ``ner[_<split>][_quick].md`` and ``..._f1.png`` / ``_linking.png``.

    Parameters
    ----------
    options : StudyOptions
    split : {"test", "dev", "train"}
        Which corpus split (:data:`SPLITS`); ``test`` writes ``ner.md``, the others ``ner_dev.md`` /
        ``ner_train.md``.
    embedding : bool
        Also measure linking with the MiniLM re-ranking (the slowest part; skipped in quick mode).

    Raises
    ------
    FileNotFoundError
        If a corpus file is missing under ``options.shared_data``.
    ValueError
        If ``split`` is not one of :data:`SPLITS`.
    """
    if split not in SPLITS:
        raise ValueError(f"split={split!r} is not one of {sorted(SPLITS)}")
    global _STUDY_NAME
    _STUDY_NAME = "ner" if split == "test" else f"ner_{split}"
    started = time.perf_counter()
    corpora: dict[str, list[PubTatorDocument]] = {}
    for name, relative in SPLITS[split].items():
        quick_docs = CORPORA[name][1]
        path = options.shared_data / relative
        if not path.is_file():
            raise FileNotFoundError(f"Corpus {name} not found at {path}: pass --shared-data (or set "
                                    "ENGRAM_SHARED_DATA) to a folder holding corpora/.")
        corpora[name] = read_pubtator(path, limit=quick_docs if options.quick else None)
    resources = build_resources()
    ner_models = installed_ner_models()
    configs = list(CONFIGS)
    from engram_kit.extraction.ner import BUNDLED_NER

    if ner_model_available(BUNDLED_NER):
        configs.extend(BUNDLED_NER_CONFIGS)
    for model, installed in ner_models.items():
        if installed:
            configs.append(PipelineConfig(f"default + scispaCy NER {model}", ner=model))

    score_rows: list[dict[str, Any]] = []
    timings: list[dict[str, Any]] = []
    default_predictions: dict[str, list[list[Predicted]]] = {}
    for config in configs:
        for corpus, documents in corpora.items():
            t0, cpu0 = time.perf_counter(), time.process_time()
            predicted = predict(resources, config, documents, options.progress)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            timings.append({"pipeline": config.name, "corpus": corpus, "documents": len(documents),
                            "seconds": seconds, "ms per document": 1000 * seconds / max(1, len(documents)),
                            "CPU ms per document": 1000 * cpu / max(1, len(documents))})
            for row in score(documents, predicted, SCORED_TYPES[corpus]):
                score_rows.append({"pipeline": config.name, "corpus": corpus, **row})
            if config.name == DEFAULT_CONFIG:
                default_predictions[corpus] = predicted
    for model, installed in ner_models.items():
        if not installed:
            score_rows.append({"pipeline": f"default + scispaCy NER {model}", "corpus": "BC5CDR",
                               "type": "not installed"})

    bridge = build_mesh_bridge(resources, options.shared_data)
    linking = {c: linking_study(docs, default_predictions[c], resources, bridge) for c, docs in corpora.items()}
    embed_rows: list[dict[str, Any]] = []
    if not options.quick and embedding:
        embed_rows = _embedding_linking(corpora, default_predictions, resources, bridge)
    errors = {c: error_analysis(docs, default_predictions[c], SCORED_TYPES[c], resources.lexicon)
              for c, docs in corpora.items()}

    figures = _plots(options, score_rows, linking)
    seconds = time.perf_counter() - started
    body = _report_body(options, corpora, resources, score_rows, timings, default_predictions, linking,
                        embed_rows, errors, bridge, ner_models, seconds)
    report = write_report(options, _STUDY_NAME, f"Entity recognition and linking: BC5CDR and NCBI-disease {split} sets", body,
                          packages=("nervaluate", "scispacy", "spacy", "pyahocorasick", "matplotlib"))
    summary: dict[str, Any] = {}
    for row in score_rows:
        if row["pipeline"] == DEFAULT_CONFIG and "strict F1" in row:
            key = f"{row['corpus']}_{row['type']}".lower().replace("-", "_")
            summary[f"{key}_strict_f1"] = row["strict F1"]
            summary[f"{key}_overlap_f1"] = row["overlap F1"]
    for corpus, result in linking.items():
        for row in result["accuracy"]:
            summary[f"{corpus}_{row['type']}_link_acc".lower().replace("-", "_")] = row["gold span acc@1"]
    summary["seconds"] = seconds
    return StudyResult(_STUDY_NAME, report, figures, summary, seconds)


def _embedding_linking(corpora: dict[str, list[PubTatorDocument]], predictions: dict[str, list[list[Predicted]]],
                       resources: Resources, bridge: MeshBridge) -> list[dict[str, Any]]:
    """Linking given gold spans with the MiniLM re-ranking of the resolver (optional component)."""
    try:
        from engram_kit.embeddings import default_embedder
        from engram_kit.resolution import EntityResolver

        embedder = default_embedder()
        embedder.encode(["warm-up"])
    except Exception as exc:  # the row then says why; the rest of the study stands
        log.warning("embedding re-rank skipped: %s", exc)
        return [{"corpus": "all", "type": "", "note": f"MiniLM embedder unavailable: {exc}"}]
    resolver = EntityResolver(resources.lexicon, resources.nodes, embedder=embedder, max_candidates=50)
    rows = []
    for corpus, docs in corpora.items():
        for row in linking_study(docs, predictions[corpus], resources, bridge, resolver)["accuracy"]:
            rows.append({"corpus": corpus, "type": row["type"], "gold span acc@1": row["gold span acc@1"],
                         "gold span recall@5": row["gold span recall@5"],
                         "gold span no candidate": row["gold span no candidate"]})
    return rows


def _plots(options: StudyOptions, score_rows: list[dict[str, Any]], linking: dict[str, Any]) -> list[Path]:
    base = options.results_dir / output_name(_STUDY_NAME, options.quick)
    default = [r for r in score_rows if r["pipeline"] == DEFAULT_CONFIG and "strict F1" in r]
    groups = [f"{r['corpus']}\n{r['type']}" for r in default]
    f1 = grouped_bar_plot(
        base.with_name(base.name + "_f1.png"), groups,
        {"strict F1": [r["strict F1"] for r in default], "overlap F1": [r["overlap F1"] for r in default]},
        title="Offline pipeline (gazetteer + abbreviations): mention F1 (nervaluate)", ylabel="F1",
        reference=("scispaCy en_ner_bc5cdr_md, BC5CDR all, published 0.843", PUBLISHED["strict F1"]))
    rows = [(c, r) for c, res in linking.items() for r in res["accuracy"]]
    link = grouped_bar_plot(
        base.with_name(base.name + "_linking.png"), [f"{c}\n{r['type']}" for c, r in rows],
        {"gold span acc@1": [r["gold span acc@1"] for _, r in rows],
         "end-to-end acc": [r["end-to-end acc"] for _, r in rows]},
        title="Linking to Hetionet where the gold MeSH id maps (resolver without embedder)", ylabel="accuracy")
    return [f1, link]


def _report_body(options: StudyOptions, corpora: dict[str, list[PubTatorDocument]], resources: Resources,
                 score_rows: list[dict[str, Any]], timings: list[dict[str, Any]],
                 predictions: dict[str, list[list[Predicted]]], linking: dict[str, Any],
                 embed_rows: list[dict[str, Any]], errors: dict[str, Any], bridge: MeshBridge,
                 ner_models: dict[str, bool], seconds: float) -> list[str]:
    docs = ", ".join(f"{c}: {len(d)} documents, {sum(len(x.mentions) for x in d)} gold mentions"
                     for c, d in corpora.items())
    body = [
        f"- Data: {docs} ({_STUDY_NAME.partition('_')[2] or 'test'} sets{'; first documents only' if options.quick else ''}).",
        f"- Lexicon: bundled `data/` ({len(resources.lexicon):,} keys over {len(resources.lexicon.node_names):,} "
        f"Hetionet nodes), lexicon + gazetteer + resolver built in {resources.build_seconds:.1f} s; study wall "
        f"time {seconds:.1f} s.",
        "- Scorer: nervaluate. *strict* = same span and type; *overlap* = overlapping span, same type "
        "(nervaluate `ent_type`); *partial* = nervaluate `partial` (overlap counts 1/2, type ignored).",
        "- Typing: the kind of the resolver's top candidate (no embedder, as ingestion does), mapped "
        "Compound -> Chemical; Disease, Symptom, Side Effect -> Disease. Other kinds are not scored "
        "(their share is below). NCBI-disease scores Disease only (its four gold types are all diseases).",
        "",
        "## Mention recognition",
        "",
        "*Ingestion default* (`INGESTION_NER` = `ner=\"bc5cdr-terms\"`, issue 14; questions and literature "
        "maps keep the dictionary + abbreviations): gazetteer + abbreviations, then the term "
        "tagger's spans where no dictionary mention overlaps: whole-word, case-sensitive matches of the chemical "
        "and disease names annotated in the BC5CDR **training** split (`data/synonyms/vocabulary/"
        "bc5cdr-train-terms.tsv.gz`, built by `scripts/make_corpus_terms.py`; thresholds looked at on the "
        "development split only). *Bundled NER* (`data/models/bc5cdr-ner`): a 6.3 MB spaCy CNN trained on the "
        "training split only (opt-in: `ner=\"bc5cdr-cnn\"` or `\"auto\"`). *union*: NER spans where no "
        "dictionary mention overlaps; *NER first*: NER spans replace the dictionary mentions they overlap.",
        "",
        markdown_table([PUBLISHED, *score_rows], ["pipeline", "corpus", "type", "gold", "predicted", "strict P",
                                                   "strict R", "strict F1", "overlap P", "overlap R", "overlap F1",
                                                   "partial F1"]),
        "",
        "The published row is scispaCy's own report (Neumann et al. 2019), not re-run here. "
        + "; ".join(f"`{m}`: {'installed' if ok else 'not installed'}" for m, ok in ner_models.items())
        + " (scispaCy NER models are optional and never downloaded by engram-kit).",
        "",
        "### Runtime per pipeline",
        "",
        markdown_table(timings, ["pipeline", "corpus", "documents", "seconds", "ms per document", "CPU ms per document"], digits=2),
        "",
        "### Kinds of the default pipeline's mentions (what is and is not scored)",
        "",
    ]
    for corpus, predicted in predictions.items():
        body += [f"**{corpus}**", "", markdown_table(_kind_shares(predicted, KIND_TO_TYPE)), ""]
    body += ["## Linking to Hetionet (default pipeline, resolver without embedder)", "",
             f"MeSH -> Hetionet bridge: DO cross-references (Disease), Symptom MeSH ids, and MeSH descriptor names "
             f"({bridge.n_descriptor_names:,} descriptors known) looked up among Hetionet names, DrugBank aliases, "
             "MeSH and DO synonyms of the gold type's kinds (Chemical -> Compound; Disease -> Disease, Symptom, "
             "Side Effect). A gold mention is *mappable* when one of its ids maps; a route column counts the "
             "mentions each route reaches (routes overlap). MeSH supplementary concepts (`C...`) and OMIM ids "
             "are not mapped.", ""]
    for corpus, result in linking.items():
        body += [f"**{corpus}: coverage**", "", markdown_table(result["coverage"]), "",
                 f"**{corpus}: accuracy** (over mappable gold mentions; *gold span*: the resolver given the gold "
                 "text alone; *end-to-end*: a pipeline mention overlapping the gold one has a correct top "
                 "candidate)", "", markdown_table(result["accuracy"]), "",
                 f"Most frequent wrong top-1 links ({corpus}, gold span): {_top(result['errors'], 10)}", ""]
    if embed_rows:
        body += ["**Optional component: resolver with MiniLM re-ranking (gold span)**", "",
                 markdown_table(embed_rows), ""]
    body += ["## Errors of the default pipeline (strict)", ""]
    for corpus, e in errors.items():
        fn_rows = [{"false-negative class": k, "gold mentions": v,
                    "most frequent (count)": _top(e["fn_examples"][k], 8)} for k, v in e["fn_class"].most_common()]
        fp_total = sum(e["fp"].values())
        fp_text = ", ".join(f"{k} [{'/'.join(e['fp_kind'][k])}] ({v})" for k, v in e["fp"].most_common(TOP_ERRORS))
        body += [f"### {corpus}", "",
                 "Lexicon reach: share of gold mentions whose text (or a singular/plural of it) is a lexicon key of a "
                 "kind scored as the gold type, i.e. the recall a perfect matcher over this lexicon could reach "
                 "without abbreviations:", "", markdown_table(e["reach"]), "",
                 markdown_table(fn_rows), "",
                 f"- False positives without any overlapping gold mention: {fp_total}. Most frequent: {fp_text}.",
                 f"- Span errors (overlaps a gold mention of the same type, other boundaries): "
                 f"{sum(e['boundary'].values())}. Most frequent (ours -> gold): {_top(e['boundary'])}.",
                 f"- Type errors (overlapping gold mention of the other type): {sum(e['type'].values())}. "
                 f"Most frequent: {_top(e['type'], 10)}.", ""]
    return body


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.quality.ner [--split dev|train|test] [--quick]``: the study on one split."""
    import argparse

    from benchmarks.quality.common import default_shared_data

    parser = argparse.ArgumentParser(prog="python -m benchmarks.quality.ner", description=main.__doc__)
    parser.add_argument("--split", choices=sorted(SPLITS), default="test", help="corpus split (default test)")
    parser.add_argument("--quick", action="store_true", help="first documents only")
    parser.add_argument("--shared-data", type=Path, default=None)
    parser.add_argument("--no-embedding", action="store_true", help="skip the MiniLM linking re-rank rows")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    result = run(StudyOptions(quick=args.quick, shared_data=args.shared_data or default_shared_data()), args.split,
                 embedding=not args.no_embedding)
    print(f"[{result.name}] done in {result.seconds:.1f} s -> {result.report}")
    for key, value in result.summary.items():
        print(f"[{result.name}] {key} = {value:.4f}" if isinstance(value, float) else f"[{result.name}] {key} = {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
