"""Citation labels of passages, shared by the extractive composer and the exact answerer (one definition)."""

from __future__ import annotations

from engram_kit.retrieval.results import PassageHit


def page_label(hit: PassageHit) -> str:
    """Citation label with the page range of a document passage (``doc, pp. 1-2``); PubMed: ``PMID:n``."""
    if hit.pmid or not hit.page_start or not hit.page_end or hit.page_end == hit.page_start:
        return hit.citation
    return f"{hit.article_id}, pp. {hit.page_start}-{hit.page_end}"
