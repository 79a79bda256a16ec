"""Entity mentions in table passages: whole cells only, by strict rules (issue 14).

A table passage (:class:`~engram_kit.ingestion.chunking.ParsedBlock` text, kind ``table``) is one line per
row, ``header: value; header: value; ...``, after the caption line. Running the prose gazetteer over it links
every atom label, substrate code, axis label and abbreviation a table holds ("OAF", "FRK", "HP" inside
"Yes (HP)"), which is why table passages were never extracted. This module links a table cell only when the
**whole cell** is one of:

* an **official HGNC gene symbol**, written exactly (case-sensitive, :data:`GENE_SYMBOL_FORM`, at least
  ``Settings.table_min_symbol_length`` characters), in a **gene column**: a column of the passage with at
  least ``Settings.table_min_column_cells`` non-empty cells of which at least ``Settings.table_min_gene_share``
  are official symbols.
  A table that lists genes lists them in a column; a lone symbol-like cell among numbers or labels ("CAT",
  "MET", "SET" in a column of codes) is not read as a gene;
* the **full primary name** of a Disease or Compound node (the Hetionet name, any case, at least
  ``Settings.table_min_name_length`` characters), e.g. a cell "Metformin" or "Type 2 diabetes mellitus".

Nothing else in a table is linked: no synonyms, aliases, abbreviations, fuzzy matches, parts of cells, numbers,
headers or captions. Footnote markers at the end of a cell (``*``, ``†``, ``‡``, ``§``) are not part of the
name. The mentions carry ``method="table"`` and exactly one candidate (the node named), and their sentence is
the row as written, so the resolver only confirms that node.
"""

from __future__ import annotations

import re

from engram_kit.extraction.lexicon import Lexicon
from engram_kit.extraction.mention import Mention
from engram_kit.settings import Settings

#: Shape of an official symbol as written in a cell: a capital letter, then capitals, digits, hyphens and the
#: lowercase of HGNC's open-reading-frame symbols ("C12orf43"); no spaces.
GENE_SYMBOL_FORM = re.compile(r"^[A-Z][A-Z0-9]*(?:orf[0-9]+)?(?:-[A-Z0-9]+)*[A-Z0-9]*$")
#: Node kinds whose full primary name links a whole cell, and the least length of such a name.
NAME_KINDS: frozenset[str] = frozenset({"Disease", "Compound"})
#: Footnote markers stripped from the end of a cell.
_FOOTNOTE = re.compile(r"[\s*\u2020\u2021\u00a7]+$")
#: The caption line a table passage starts with ("Table 3 ...", "Table 2 (continued)").
_CAPTION = re.compile(r"^(?:Table|TABLE)\s+\S+")


def table_cells(text: str) -> list[tuple[str, str, int, int]]:
    """Cells of a table passage as ``(column, value, start, end)``, character offsets of the value in ``text``
    (footnote markers excluded); caption lines and empty cells are skipped.

    A row line is split on ``"; "`` into ``header: value`` parts (the readable form
    :class:`~engram_kit.ingestion.chunking.ParsedBlock` writes); a part without ``": "`` is a value with no
    column name (column ``""``).
    """
    cells: list[tuple[str, str, int, int]] = []
    offset = 0
    for line in text.split("\n"):
        line_start = offset
        offset += len(line) + 1
        if not line.strip() or _CAPTION.match(line):
            continue
        position = 0
        for part in line.split("; "):
            part_start = line_start + position
            position += len(part) + 2
            column, sep, value = part.partition(": ")
            if not sep:
                column, value = "", part
            value_start = part_start + (len(column) + len(sep) if sep else 0)
            stripped = value.strip()
            if not stripped:
                continue
            start = value_start + (len(value) - len(value.lstrip()))
            core = _FOOTNOTE.sub("", stripped)
            if core:
                cells.append((column.strip(), core, start, start + len(core)))
    return cells


def _official_symbol(lexicon: Lexicon, value: str) -> str | None:
    """Node id of the gene whose official symbol is exactly ``value``, else None (a Hetionet Gene node's name
    is its HGNC symbol, lexicon source ``name``; ``gene-symbol`` rows are symbols from the HGNC table)."""
    if len(value) < Settings.table_min_symbol_length or not GENE_SYMBOL_FORM.match(value):
        return None
    for entry in lexicon.lookup(value):
        if entry.kind == "Gene" and entry.source in ("name", "gene-symbol") and entry.surface == value:
            return entry.node_id
    return None


def _full_name(lexicon: Lexicon, value: str) -> tuple[str, str] | None:
    """(node id, kind) of the one Disease/Compound node whose primary name is ``value`` (any case), else None."""
    if len(value) < Settings.table_min_name_length or not any(c.isalpha() for c in value):
        return None
    found = {(e.node_id, e.kind) for e in lexicon.lookup(value)
             if e.source == "name" and e.kind in NAME_KINDS and e.surface.casefold() == value.casefold()}
    return next(iter(found)) if len(found) == 1 else None


def table_mentions(text: str, lexicon: Lexicon) -> list[Mention]:
    """Mentions of a table passage by the rules of the module docstring, sorted by start.

    Parameters
    ----------
    text : the passage text (caption line, then ``header: value; ...`` rows).
    lexicon : the lexicon of the workspace (only its ``name`` and ``gene-symbol`` entries are used).

    Returns
    -------
    list of Mention
        ``method="table"``, one candidate each, ``sentence`` = the row line (whitespace collapsed),
        ``zone="prose"``.
    """
    cells = table_cells(text)
    symbols = {i: _official_symbol(lexicon, value) for i, (_, value, _, _) in enumerate(cells)}
    per_column: dict[str, list[int]] = {}
    for i, (column, _, _, _) in enumerate(cells):
        per_column.setdefault(column, []).append(i)
    gene_columns = {column for column, members in per_column.items()
                    if len(members) >= Settings.table_min_column_cells
                    and sum(symbols[i] is not None for i in members) >= Settings.table_min_gene_share * len(members)}
    out: list[Mention] = []
    for i, (column, value, start, end) in enumerate(cells):
        node_kind: tuple[str, str] | None = None
        gene = symbols[i]
        if gene is not None and column in gene_columns:
            node_kind = (gene, "Gene")
        elif gene is None:
            node_kind = _full_name(lexicon, value)
        if node_kind is None:
            continue
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        row = " ".join(text[line_start:line_end if line_end >= 0 else len(text)].split())
        out.append(Mention(text[start:end], start, end, (node_kind[0],), (node_kind[1],), "table",
                           sentence=row, zone="prose"))
    return out
