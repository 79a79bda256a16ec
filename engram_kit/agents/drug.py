"""Drug agent: targets, indirect links, repurposing candidates, two-compound comparison, mechanism.

Routed for Compound entities, genes with known binders, and diseases in questions that ask for
compounds (:mod:`engram_kit.agents.routing`). All facts are Hetionet v1.0 edges (Himmelstein et al.,
"Systematic integration of biomedical knowledge prioritizes drugs for repurposing", eLife 2017).

* **Direct targets**: ``BINDS_CbG`` (compound -> gene) in either direction of the question.
* **Indirect links**: compounds that up- or down-regulate a query gene (``UPREGULATES_CuG``,
  ``DOWNREGULATES_CdG``), and compounds binding other members of the query gene's pathways
  (``PARTICIPATES_GpPW``), ranked by the number of shared pathways.
* **Repurposing candidates** for a disease: Personalized PageRank on the knowledge graph seeded with
  the disease (share ``AgentOptions.disease_seed_share``) and its associated genes (``ASSOCIATES_DaG``,
  the rest split evenly), excluding compounds that already treat or palliate it (``TREATS_CtD``,
  ``PALLIATES_CpD``). Raw PPR mostly finds hub compounds (the same Mitoxantrone and Dexamethasone for every
  disease), so candidates are ranked **disease-specifically**: by ``score = ppr - background``, where
  ``background`` is the PPR the compound gets from the *average* disease (the same seed construction
  averaged over every disease of the graph; PPR is linear in its seed vector, so this is one PPR run).
  A compound ranks high when this disease reaches it more than diseases do in general; ``specificity`` =
  ``ppr / background`` is shown beside it. Beside it, the **degree-only baseline**: compounds ranked by
  their number of graph neighbours. Project Rephetio found such degree-based priors alone reach a high AUROC (0.979 reported in
  the brief for its prior) because well-studied compounds are both highly connected and more often
  indicated, so a PPR ranking is only interesting where it departs from degree. ``auroc_ppr`` and
  ``auroc_degree`` measure how well each ranking recovers the disease's known treatments among all
  compounds; this is **not** a held-out evaluation (the treatment edges are in the graph PPR runs on).
* **Two compounds**: shared targets, and pathway conflicts: genes one compound up-regulates and the
  other down-regulates, and pathways where their net regulation of member genes has opposite signs.
* **Mechanism narrative**: sentences built only from graph paths compound -> binds -> gene ->
  associated with -> disease (or a shortest path when there is none), each citing its edges.

On a graph without these metaedges (a Biolink KGX graph) the agent does not query anything: its report
holds one note, "not applicable to a <graph> graph (no Compound nodes; ...)" (see
:func:`engram_kit.agents.routing.not_applicable`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from engram_kit.agents.base import AgentContext, Emit
from engram_kit.agents.events import DrugEvent, StatusEvent
from engram_kit.agents.graph import GraphPath, edge_citation
from engram_kit.agents.render import claims_markdown, frame_markdown, section
from engram_kit.agents.routing import report_not_applicable
from engram_kit.answering import Citation, Claim
from engram_kit.retrieval.ppr import personalized_pagerank
from engram_kit.store.csr import CSRGraph


def auroc(scores: np.ndarray, positives: np.ndarray) -> float | None:
    """Area under the ROC curve of ``scores`` for the boolean ``positives`` (Mann-Whitney U, ties
    averaged); None when there are no positives or no negatives.

    Parameters
    ----------
    scores : float array of shape (n,); higher = predicted positive.
    positives : bool array of shape (n,).
    """
    n_pos = int(positives.sum())
    n_neg = int(positives.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = pd.Series(scores).rank(method="average").to_numpy()
    return float((ranks[positives].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


@dataclass
class Repurposing:
    """Repurposing candidates for one disease.

    Attributes
    ----------
    candidates : DataFrame ``rank, compound_id, name, score, ppr, background, specificity, degree, degree_rank``
        (top by ``score = ppr - background``: ``ppr`` is the stationary probability for this disease,
        ``background`` that for the average disease, ``specificity = ppr / background``, ``degree`` the number
        of graph neighbours).
    baseline : DataFrame ``rank, compound_id, name, degree, ppr_rank`` (top by degree, same exclusions).
    known_treatments : DataFrame ``compound_id, name, ppr_rank_all, degree_rank_all`` (TREATS_CtD; ranks
        among all compounds).
    auroc_ppr, auroc_degree : AUROC of known treatments among all compounds, in [0, 1], or None.
    n_seed_genes : associated genes used as seeds.
    """

    disease_id: str
    disease_name: str
    n_seed_genes: int
    seed_genes: list[str]
    candidates: pd.DataFrame
    baseline: pd.DataFrame
    known_treatments: pd.DataFrame
    auroc_ppr: float | None
    auroc_degree: float | None
    palliatives: list[str] = field(default_factory=list)

    def to_markdown(self, rows: int = 10) -> str:
        """The candidates as a Markdown table, with the exclusions and the ranking rule."""
        head = (f"**Repurposing candidates for {self.disease_name}** (disease-specific PPR excess over the average "
                f"disease; {len(self.known_treatments)} known treatment(s) and {len(self.palliatives)} palliative(s) "
                "excluded)")
        cols = [c for c in ("rank", "name", "score", "specificity", "ppr", "degree", "degree_rank")
                if c in self.candidates.columns]
        return head + "\n\n" + frame_markdown(self.candidates[cols], rows)

    def to_dict(self) -> dict[str, Any]:
        return {"disease_id": self.disease_id, "palliatives": self.palliatives, "disease_name": self.disease_name, "n_seed_genes": self.n_seed_genes,
                "seed_genes": self.seed_genes,
                "candidates": self.candidates.to_dict(orient="records"),
                "baseline": self.baseline.to_dict(orient="records"),
                "known_treatments": self.known_treatments.to_dict(orient="records"),
                "auroc_ppr": self.auroc_ppr, "auroc_degree": self.auroc_degree}


@dataclass
class CompoundComparison:
    """Shared targets and regulation conflicts of two compounds (ids and names)."""

    a_id: str
    a_name: str
    b_id: str
    b_name: str
    shared_targets: tuple[str, ...]
    gene_conflicts: tuple[str, ...]
    pathway_conflicts: pd.DataFrame  # pathway_id, name, a_net, b_net

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k != "pathway_conflicts"}
        out["pathway_conflicts"] = self.pathway_conflicts.to_dict(orient="records")
        return out


@dataclass
class DrugReport:
    """What the drug agent found (see the module docstring).

    Attributes
    ----------
    targets : DataFrame ``compound_id, compound, gene_id, gene, relation`` (BINDS / UP / DOWN of question compounds).
    binders : DataFrame ``gene_id, gene, compound_id, compound, relation, shared_pathways`` for query genes:
        ``BINDS_CbG`` direct, ``UPREGULATES_CuG``/``DOWNREGULATES_CdG`` and ``via_pathway`` indirect.
    indications : DataFrame ``compound_id, compound, disease_id, disease, relation`` (TREATS / PALLIATES).
    notes : why the agent did nothing (``"not applicable to a Monarch KG sample graph (...)"``), else empty.
    """

    targets: pd.DataFrame = field(default_factory=pd.DataFrame)
    binders: pd.DataFrame = field(default_factory=pd.DataFrame)
    indications: pd.DataFrame = field(default_factory=pd.DataFrame)
    repurposing: list[Repurposing] = field(default_factory=list)
    comparisons: list[CompoundComparison] = field(default_factory=list)
    narrative: list[Claim] = field(default_factory=list)
    findings: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """Repurposing candidates of the first disease, else the binders, else the targets."""
        if self.repurposing:
            return self.repurposing[0].candidates
        return self.binders if not self.binders.empty else self.targets

    def to_markdown(self, rows: int = 10) -> str:
        """Findings as cited bullets, then tables: repurposing candidates per disease, targets, binders."""
        lines = claims_markdown(self.findings)
        for rep in self.repurposing:
            lines += ["", rep.to_markdown(rows)]
        if not self.targets.empty:
            lines += section("Targets of the question's compounds", [frame_markdown(
                self.targets[["compound", "gene", "relation"]], rows)])
        if not self.binders.empty:
            lines += section("Compounds acting on the question's genes", [frame_markdown(
                self.binders[["gene", "compound", "relation", "shared_pathways"]], rows)])
        lines += [f"> {note}" for note in self.notes]
        return "\n".join(lines).strip() or "No drug findings."

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_dict(self) -> dict[str, Any]:
        return {"targets": self.targets.to_dict(orient="records"), "binders": self.binders.to_dict(orient="records"),
                "indications": self.indications.to_dict(orient="records"),
                "repurposing": [r.to_dict() for r in self.repurposing],
                "comparisons": [c.to_dict() for c in self.comparisons],
                "narrative": [asdict(c) for c in self.narrative], "findings": [asdict(c) for c in self.findings],
                "notes": list(self.notes)}


#: Background PPR per knowledge graph (id -> (graph, (damping, share), scores)): one run per graph and settings.
_BACKGROUND: dict[int, tuple[CSRGraph, tuple[float, float], np.ndarray]] = {}


def disease_seeds(disease: int | None, genes: list[int], share: float) -> dict[int, float]:
    """Seed weights of a disease's repurposing PPR: ``share`` on the disease node, the rest split evenly over
    its associated genes (all on the disease when it has none). Weights sum to 1 (0 seeds -> empty)."""
    seeds: dict[int, float] = {}
    share = share if genes else 1.0
    if disease is not None:
        seeds[disease] = share
    for i in genes:
        seeds[i] = seeds.get(i, 0.0) + (1.0 - share) / len(genes)
    return seeds


def _compound_mask(kg: CSRGraph) -> np.ndarray:
    return np.char.startswith(kg.node_ids.astype(str), "Compound::")


class DrugAgent:
    """See the module docstring."""

    name = "drug"

    def run(self, context: AgentContext, emit: Emit) -> DrugReport:
        skipped = report_not_applicable(self.name, context, emit, DrugReport, DrugEvent)
        if skipped is not None:  # no Hetionet compound metaedges: say so instead of querying tables that do not exist
            return skipped
        emit(StatusEvent(self.name, "targets, binders and repurposing candidates"))
        report = DrugReport()
        compounds = context.of_kind("Compound")
        genes = context.of_kind("Gene")
        diseases = context.of_kind("Disease")
        n = context.options.max_items

        compound_ids = [c.node_id for c in compounds]
        if compound_ids:
            report.targets = self._compound_targets(context, compound_ids)
            report.indications = self._indications(context, compound_ids)
            for cid, group in report.targets.groupby("compound_id", sort=False):
                binds = group[group["relation"] == "BINDS_CbG"]
                if len(binds):
                    report.findings.append(Claim(
                        f"{group['compound'].iloc[0]} binds {len(binds)} gene(s): {', '.join(binds['gene'].head(n))}",
                        tuple(edge_citation(cid, "BINDS_CbG", g) for g in binds["gene_id"].head(3))))
            for row in report.indications.head(n).itertuples(index=False):
                verb = "treats" if row.relation == "TREATS_CtD" else "palliates"
                report.findings.append(Claim(f"{row.compound} {verb} {row.disease}",
                                             (edge_citation(row.compound_id, row.relation, row.disease_id),)))
        if genes:
            report.binders = self._gene_binders(context, [g.node_id for g in genes])
            report.findings += self._binder_claims(report.binders, n)
        for disease in diseases:
            emit(StatusEvent(self.name, f"repurposing PPR for {disease.name}"))
            report.repurposing.append(self._repurpose(context, disease.node_id, disease.name))
        for (a, b) in combinations(compounds, 2):
            comparison = self._compare(context, a.node_id, a.name, b.node_id, b.name)
            report.comparisons.append(comparison)
            report.findings.append(self._comparison_claim(comparison))
        report.narrative = self._narrative(context, report, [d.node_id for d in diseases], [g.node_id for g in genes])
        for rep in report.repurposing:
            report.findings += self._repurposing_claims(rep, report.narrative)
        report.findings += report.narrative
        emit(DrugEvent(self.name, report))
        return report

    # --- compounds -----------------------------------------------------------------------------
    def _compound_targets(self, context: AgentContext, ids: list[str]) -> pd.DataFrame:
        frames = []
        for rel in ("BINDS_CbG", "UPREGULATES_CuG", "DOWNREGULATES_CdG"):
            f = context.graph.neighbours(self.name, ids, "Compound", rel, "Gene")
            frames.append(f.assign(relation=rel))
        frame = pd.concat(frames, ignore_index=True)
        names = context.graph.names(ids)
        frame = frame.rename(columns={"source_id": "compound_id", "id": "gene_id", "name": "gene"})
        frame["compound"] = frame["compound_id"].map(names)
        return frame[["compound_id", "compound", "gene_id", "gene", "relation"]]

    def _indications(self, context: AgentContext, ids: list[str]) -> pd.DataFrame:
        frames = [context.graph.neighbours(self.name, ids, "Compound", rel, "Disease").assign(relation=rel)
                  for rel in ("TREATS_CtD", "PALLIATES_CpD")]
        frame = pd.concat(frames, ignore_index=True).rename(
            columns={"source_id": "compound_id", "id": "disease_id", "name": "disease"})
        names = context.graph.names(ids)
        frame["compound"] = frame["compound_id"].map(names)
        return frame[["compound_id", "compound", "disease_id", "disease", "relation"]]

    # --- genes ---------------------------------------------------------------------------------
    def _gene_binders(self, context: AgentContext, gene_ids: list[str]) -> pd.DataFrame:
        graph = context.graph
        names = graph.names(gene_ids)
        frames = []
        for rel in ("BINDS_CbG", "UPREGULATES_CuG", "DOWNREGULATES_CdG"):
            f = graph.neighbours(self.name, gene_ids, "Gene", rel, "Compound")
            frames.append(f.assign(relation=rel, shared_pathways=0, via=""))
        direct = pd.concat(frames, ignore_index=True)
        # Indirect through pathways: compounds binding other members of the query genes' pathways.
        pathways = graph.neighbours(self.name, gene_ids, "Gene", "PARTICIPATES_GpPW", "Pathway")
        if not pathways.empty:
            members = graph.neighbours(self.name, sorted(set(pathways["id"])), "Pathway", "PARTICIPATES_GpPW", "Gene")
            members = members[~members["id"].isin(gene_ids)]
            member_ids = sorted(set(members["id"]))
            binders = graph.neighbours(self.name, member_ids, "Gene", "BINDS_CbG", "Compound") if member_ids else members.iloc[:0]
            if not binders.empty:
                gene_pathways = pathways.groupby("source_id")["id"].agg(set).to_dict()
                member_of = members.groupby("id")["source_id"].agg(set).to_dict()  # member gene -> pathways
                rows = []
                known = set(direct.loc[direct["relation"] == "BINDS_CbG", "id"])
                for compound, group in binders.groupby("id"):
                    if compound in known:
                        continue
                    bound = set(group["source_id"])
                    for gene in gene_ids:
                        shared = {p for m in bound for p in member_of.get(m, ()) if p in gene_pathways.get(gene, ())}
                        if shared:
                            via = sorted(m for m in bound if member_of.get(m, set()) & shared)[0]
                            rows.append({"source_id": gene, "id": compound, "name": str(group["name"].iloc[0]),
                                         "relation": "via_pathway", "shared_pathways": len(shared), "via": via})
                if rows:
                    direct = pd.concat([direct, pd.DataFrame(rows)], ignore_index=True)
        frame = direct.rename(columns={"source_id": "gene_id", "id": "compound_id", "name": "compound"})
        frame["gene"] = frame["gene_id"].map(names)
        order = {"BINDS_CbG": 0, "UPREGULATES_CuG": 1, "DOWNREGULATES_CdG": 1, "via_pathway": 2}
        frame["_o"] = frame["relation"].map(order)
        frame = frame.sort_values(["gene_id", "_o", "shared_pathways", "compound"], ascending=[True, True, False, True],
                                  ignore_index=True)
        return frame[["gene_id", "gene", "compound_id", "compound", "relation", "shared_pathways", "via"]]

    @staticmethod
    def _binder_claims(binders: pd.DataFrame, n: int) -> list[Claim]:
        claims = []
        for gene_id, group in binders.groupby("gene_id", sort=False):
            gene = group["gene"].iloc[0]
            direct = group[group["relation"] == "BINDS_CbG"]
            if len(direct):
                claims.append(Claim(f"{len(direct)} compound(s) bind {gene}: {', '.join(direct['compound'].head(n))}",
                                    tuple(edge_citation(c, "BINDS_CbG", gene_id) for c in direct["compound_id"].head(3))))
            regulators = group[group["relation"].isin(["UPREGULATES_CuG", "DOWNREGULATES_CdG"])]
            if len(regulators):
                shown = ", ".join(f"{r.compound} ({'up' if r.relation.startswith('UP') else 'down'})"
                                  for r in regulators.head(n).itertuples())
                claims.append(Claim(f"{len(regulators)} compound(s) regulate {gene} expression: {shown}",
                                    tuple(edge_citation(r.compound_id, r.relation, gene_id)
                                          for r in regulators.head(3).itertuples())))
            via = group[group["relation"] == "via_pathway"]
            if len(via):
                top = via.head(n)
                claims.append(Claim(
                    f"{len(via)} compound(s) bind other members of {gene}'s pathways, e.g. "
                    + ", ".join(f"{r.compound} ({r.shared_pathways} shared pathway(s))" for r in top.itertuples()),
                    tuple(edge_citation(r.compound_id, "BINDS_CbG", r.via) for r in via.head(3).itertuples())))
        return claims

    # --- repurposing -----------------------------------------------------------------------------
    def _repurpose(self, context: AgentContext, disease_id: str, disease_name: str) -> Repurposing:
        graph, opts = context.graph, context.options
        kg = graph.kg
        genes = graph.neighbours(self.name, [disease_id], "Disease", "ASSOCIATES_DaG", "Gene")
        treats = graph.neighbours(self.name, [disease_id], "Disease", "TREATS_CtD", "Compound")
        palliates = graph.neighbours(self.name, [disease_id], "Disease", "PALLIATES_CpD", "Compound")
        index = kg.index
        gene_idx = [index[g] for g in genes["id"] if g in index]
        seeds = disease_seeds(index.get(disease_id), gene_idx, opts.disease_seed_share)
        compound = np.flatnonzero(_compound_mask(kg))
        degree = np.diff(kg.adjacency.indptr)[compound].astype(np.float64)
        ppr = personalized_pagerank(kg, seeds, damping=context.damping).scores[compound] if seeds else np.zeros(compound.size)
        background = self._background(context)[compound]
        scores = ppr - background  # disease-specific excess over the average disease
        ids = kg.node_ids[compound].astype(str)
        known = np.isin(ids, treats["id"].to_numpy(dtype=str))
        indicated = known | np.isin(ids, palliates["id"].to_numpy(dtype=str))
        ppr_rank = _ranks(scores, ~indicated)
        deg_rank = _ranks(degree, ~indicated)
        k = opts.repurposing_candidates
        cand_idx = [i for i in np.argsort(-scores, kind="stable") if not indicated[i] and ppr[i] > 0][:k]
        base_idx = [i for i in np.argsort(-degree, kind="stable") if not indicated[i]][:k]
        all_ids = [str(ids[i]) for i in cand_idx + base_idx] + treats["id"].tolist()
        names = graph.names(all_ids)
        with np.errstate(divide="ignore", invalid="ignore"):
            specificity = np.where(background > 0, ppr / np.maximum(background, 1e-300), np.inf)
        candidates = pd.DataFrame({
            "rank": range(1, len(cand_idx) + 1), "compound_id": [str(ids[i]) for i in cand_idx],
            "name": [names[str(ids[i])] for i in cand_idx], "score": [float(scores[i]) for i in cand_idx],
            "ppr": [float(ppr[i]) for i in cand_idx], "background": [float(background[i]) for i in cand_idx],
            "specificity": [float(specificity[i]) for i in cand_idx],
            "degree": [int(degree[i]) for i in cand_idx], "degree_rank": [int(deg_rank[i]) for i in cand_idx]})
        baseline = pd.DataFrame({
            "rank": range(1, len(base_idx) + 1), "compound_id": [str(ids[i]) for i in base_idx],
            "name": [names[str(ids[i])] for i in base_idx], "degree": [int(degree[i]) for i in base_idx],
            "ppr_rank": [int(ppr_rank[i]) for i in base_idx]})
        position = {str(c): j for j, c in enumerate(ids)}
        everyone = np.ones(known.size, dtype=bool)
        ppr_all, deg_all = _ranks(scores, everyone), _ranks(degree, everyone)
        known_rows = [{"compound_id": c, "name": names.get(c, c),
                       "ppr_rank_all": int(ppr_all[position[c]]) if c in position else None,
                       "degree_rank_all": int(deg_all[position[c]]) if c in position else None}
                      for c in treats["id"]]
        rep = Repurposing(disease_id, disease_name, len(gene_idx), sorted(genes["id"]), candidates, baseline,
                          pd.DataFrame(known_rows, columns=["compound_id", "name", "ppr_rank_all", "degree_rank_all"]),
                          auroc(scores, known), auroc(degree, known))
        rep.palliatives = sorted(palliates["id"])
        return rep

    def _background(self, context: AgentContext) -> np.ndarray:
        """PPR of every node for the average disease (seed vector averaged over all diseases; cached per graph)."""
        kg = context.graph.kg
        cached = _BACKGROUND.get(id(kg))
        if cached is not None and cached[0] is kg and cached[1] == (context.damping, context.options.disease_seed_share):
            return cached[2]
        index = kg.index
        disease_ids = [str(x) for x in kg.node_ids.astype(str) if str(x).startswith("Disease::")]
        links = context.graph.neighbours(self.name, disease_ids, "Disease", "ASSOCIATES_DaG", "Gene")
        by_disease = links.groupby("source_id")["id"].agg(list).to_dict() if not links.empty else {}
        total: dict[int, float] = {}
        for d in disease_ids:
            gene_idx = [index[g] for g in by_disease.get(d, []) if g in index]
            for node, weight in disease_seeds(index.get(d), gene_idx, context.options.disease_seed_share).items():
                total[node] = total.get(node, 0.0) + weight / len(disease_ids)
        scores = (personalized_pagerank(kg, total, damping=context.damping).scores if total
                  else np.zeros(kg.n_nodes))
        _BACKGROUND[id(kg)] = (kg, (context.damping, context.options.disease_seed_share), scores)
        return scores

    def _repurposing_claims(self, rep: Repurposing, narrative: list[Claim]) -> list[Claim]:
        """Known treatments, and the candidates citing the narrative edges about them (else the seed
        edges the PPR ranking rests on: the disease's gene associations)."""
        claims = []
        if len(rep.known_treatments):
            shown = ", ".join(rep.known_treatments["name"])
            palliative = f" (and {len(rep.palliatives)} palliative compound(s))" if rep.palliatives else ""
            claims.append(Claim(f"Known treatments of {rep.disease_name} (excluded from candidates{palliative}): {shown}",
                                tuple(edge_citation(c, "TREATS_CtD", rep.disease_id)
                                      for c in rep.known_treatments["compound_id"].head(3))))
        if len(rep.candidates):
            top = ", ".join(f"{r.name} (#{r.rank}, degree rank {r.degree_rank})"
                            for r in rep.candidates.head(5).itertuples())
            quality = ""
            if rep.auroc_ppr is not None:
                quality = (f"; known treatments rank with AUROC {rep.auroc_ppr:.3f} by PPR vs {rep.auroc_degree:.3f} "
                           "by degree alone (in-graph, not held out)")
            top_ids = set(rep.candidates["compound_id"].head(5))
            cites = tuple(x for c in narrative for x in c.citations if x.ref.split(" ", 1)[0] in top_ids)
            cites = cites or tuple(edge_citation(rep.disease_id, "ASSOCIATES_DaG", g) for g in rep.seed_genes[:3])
            claims.append(Claim(f"Repurposing candidates for {rep.disease_name} by disease-specific PPR (excess over "
                                f"the average disease) from the disease and its {rep.n_seed_genes} associated genes: "
                                f"{top}{quality}", cites))
        return claims

    # --- two compounds ----------------------------------------------------------------------------
    def _compare(self, context: AgentContext, a: str, a_name: str, b: str, b_name: str) -> CompoundComparison:
        graph = context.graph
        rel = {r: graph.neighbours(self.name, [a, b], "Compound", r, "Gene")
               for r in ("BINDS_CbG", "UPREGULATES_CuG", "DOWNREGULATES_CdG")}

        def genes(r: str, c: str) -> set[str]:
            f = rel[r]
            return set(f.loc[f["source_id"] == c, "id"])

        names = {**dict(zip(rel["BINDS_CbG"]["id"], rel["BINDS_CbG"]["name"])),
                 **dict(zip(rel["UPREGULATES_CuG"]["id"], rel["UPREGULATES_CuG"]["name"])),
                 **dict(zip(rel["DOWNREGULATES_CdG"]["id"], rel["DOWNREGULATES_CdG"]["name"]))}
        shared = sorted(genes("BINDS_CbG", a) & genes("BINDS_CbG", b))
        up_a, down_a = genes("UPREGULATES_CuG", a), genes("DOWNREGULATES_CdG", a)
        up_b, down_b = genes("UPREGULATES_CuG", b), genes("DOWNREGULATES_CdG", b)
        conflicts = sorted((up_a & down_b) | (down_a & up_b))
        regulated = sorted(up_a | down_a | up_b | down_b)
        rows = []
        if regulated:
            pw = graph.neighbours(self.name, regulated, "Gene", "PARTICIPATES_GpPW", "Pathway")
            for pid, group in pw.groupby("id"):
                members = set(group["source_id"])
                net_a = len(members & up_a) - len(members & down_a)
                net_b = len(members & up_b) - len(members & down_b)
                if net_a * net_b < 0:
                    rows.append({"pathway_id": pid, "name": str(group["name"].iloc[0]), "a_net": net_a, "b_net": net_b})
        frame = pd.DataFrame(rows, columns=["pathway_id", "name", "a_net", "b_net"])
        if len(frame):
            frame = frame.assign(_m=(frame["a_net"].abs() + frame["b_net"].abs())).sort_values(
                ["_m", "name"], ascending=[False, True], ignore_index=True).drop(columns="_m")
        comparison = CompoundComparison(a, a_name, b, b_name, tuple(names.get(g, g) for g in shared),
                                        tuple(names.get(g, g) for g in conflicts), frame)
        fallback = [edge_citation(c, "BINDS_CbG", sorted(genes("BINDS_CbG", c))[0])
                    for c in (a, b) if genes("BINDS_CbG", c)]
        comparison.pathway_conflicts.attrs["ids"] = {"shared": shared, "conflicts": conflicts,
                                                     "up_a": up_a, "down_b": down_b, "fallback": fallback}
        return comparison

    @staticmethod
    def _comparison_claim(c: CompoundComparison) -> Claim:
        ids = c.pathway_conflicts.attrs.get("ids", {})
        text = (f"{c.a_name} and {c.b_name} share {len(c.shared_targets)} target(s)"
                + (f" ({', '.join(c.shared_targets[:8])})" if c.shared_targets else "")
                + f"; {len(c.gene_conflicts)} gene(s) regulated in opposite directions"
                + (f" ({', '.join(c.gene_conflicts[:8])})" if c.gene_conflicts else "")
                + f"; {len(c.pathway_conflicts)} pathway(s) with opposite net regulation")
        citations: list[Citation] = []
        for g in ids.get("shared", [])[:2]:
            citations += [edge_citation(c.a_id, "BINDS_CbG", g), edge_citation(c.b_id, "BINDS_CbG", g)]
        for g in ids.get("conflicts", [])[:2]:
            a_rel = "UPREGULATES_CuG" if g in ids.get("up_a", set()) else "DOWNREGULATES_CdG"
            b_rel = "DOWNREGULATES_CdG" if a_rel == "UPREGULATES_CuG" else "UPREGULATES_CuG"
            citations += [edge_citation(c.a_id, a_rel, g), edge_citation(c.b_id, b_rel, g)]
        return Claim(text, tuple(citations) or tuple(ids.get("fallback", ())))

    # --- mechanism narrative -------------------------------------------------------------------------
    def _narrative(self, context: AgentContext, report: DrugReport, disease_ids: list[str],
                   gene_ids: list[str]) -> list[Claim]:
        """Sentences from graph paths compound -> gene -> disease (or query gene), citing every edge."""
        limit = context.options.narrative_paths
        if limit == 0:
            return []
        graph = context.graph
        compounds = list(dict.fromkeys(
            [e.node_id for e in context.of_kind("Compound")]
            + [c for r in report.repurposing for c in r.candidates["compound_id"].head(3)]
            + (report.binders.loc[report.binders["relation"] == "BINDS_CbG", "compound_id"].head(3).tolist()
               if not report.binders.empty else [])))[:limit]
        targets = disease_ids + [g for g in gene_ids if not disease_ids]
        if not compounds or not targets:
            return []
        bound = graph.neighbours(self.name, compounds, "Compound", "BINDS_CbG", "Gene")
        associated = (graph.neighbours(self.name, disease_ids, "Disease", "ASSOCIATES_DaG", "Gene")
                      if disease_ids else pd.DataFrame(columns=["source_id", "id", "name"]))
        names = graph.names(compounds + targets)
        claims: list[Claim] = []
        for compound in compounds:
            mine = bound[bound["source_id"] == compound]
            for target in targets:
                if target in set(mine["id"]):  # compound binds the query gene directly
                    claims.append(Claim(f"{names[compound]} binds {names[target]}",
                                        (edge_citation(compound, "BINDS_CbG", target),)))
                    continue
                linked = mine[mine["id"].isin(associated.loc[associated["source_id"] == target, "id"])]
                if len(linked):
                    genes = linked.head(3)
                    text = (f"{names[compound]} binds {', '.join(genes['name'])}, "
                            f"{'which is' if len(genes) == 1 else 'which are'} associated with {names[target]}")
                    cites = []
                    for g in genes["id"]:
                        cites += [edge_citation(compound, "BINDS_CbG", g), edge_citation(target, "ASSOCIATES_DaG", g)]
                    claims.append(Claim(text, tuple(cites)))
                    continue
                path = graph.shortest_path(compound, target, context.options.max_path_hops)
                if path is not None:
                    claims.append(Claim(_path_sentence(path), path.citations()))
        return claims


def _path_sentence(path: GraphPath) -> str:
    """``"Graph path: Mitoxantrone upregulates CLGN; Alzheimer's disease downregulates CLGN"``: every edge
    worded subject first, as stored (a walk may traverse an edge against its direction)."""
    names = dict(zip(path.nodes, path.names))
    parts = []
    for (source, rel, target), walked in zip(path.edges, path.relations):
        verb = (rel or walked).split("|")[0].split("_")[0].lower()
        parts.append(f"{names.get(source, source)} {verb} {names.get(target, target)}")
    return "Graph path: " + "; ".join(parts)


def _ranks(values: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """1-based rank by decreasing value among ``eligible`` entries (ineligible ones get 0); ties by order."""
    out = np.zeros(values.size, dtype=np.int64)
    idx = np.flatnonzero(eligible)
    order = idx[np.argsort(-values[idx], kind="stable")]
    out[order] = np.arange(1, order.size + 1)
    return out
