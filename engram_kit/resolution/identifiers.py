"""Entity look-up by identifier: a CURIE (``HGNC:10848``, ``DOID:1612``) or an engram node id (``Gene::7157``)
typed by a user names exactly that node. One index and one text pattern for search, retrieval and the desk."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A CURIE or node id in free text: ``HGNC:10848``, ``mondo:0010011``, ``Gene::7157``, ``Disease::DOID:1612``;
#: it starts with a letter and ends with a word character (a trailing ``.`` or ``-`` is prose).
IDENTIFIER_IN_TEXT = re.compile(r"(?<![\w:])[A-Za-z][\w.-]*::?[\w.:-]*\w")


def identifier_index(node_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Case-folded identifier or node id -> node ids, for look-up by CURIE.

    Parameters
    ----------
    node_ids : graph node ids ``"<kind>::<identifier>"``: Hetionet ``"Gene::7157"``,
        ``"Disease::DOID:1612"``; KGX ``"Gene::HGNC:10848"`` (the identifier is the CURIE).

    Returns
    -------
    dict of str to tuple of str
        Keys are the whole node id and the identifier after ``::``, both case-folded (so ``hgnc:10848``
        finds ``HGNC:10848``; no two identifiers of Hetionet or of a Biolink graph differ only in case).
        A bare identifier without a namespace prefix (Hetionet's Entrez ``"7157"``, MeSH ``"D000006"``) is
        kept only when exactly one node has it: a number alone is too weak a clue to offer several nodes.
    """
    index: dict[str, list[str]] = {}
    for node_id in node_ids:
        index.setdefault(node_id.casefold(), []).append(node_id)
        identifier = node_id.partition("::")[2]
        if identifier:
            index.setdefault(identifier.casefold(), []).append(node_id)
    return {key: tuple(dict.fromkeys(ids)) for key, ids in index.items()
            if len(set(ids)) == 1 or ":" in key}
