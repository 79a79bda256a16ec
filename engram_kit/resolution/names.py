"""Name keys and NounPhrase ids.

NounPhrase nodes are merged across documents on (normalised name, entity type): two mentions whose names
normalise to the same key and that have the same type are one NounPhrase (see :mod:`engram_kit.records`).
"""

from __future__ import annotations

from engram_kit.errors import DataError
from engram_kit.extraction.normalize import normalize_name

__all__ = ["normalize_name", "nounphrase_id"]


def nounphrase_id(name: str, entity_type: str) -> str:
    """Stable NounPhrase id ``np:<entity type>:<normalised name>``.

    Parameters
    ----------
    name : str
        Surface form of the mention ("Alzheimer's disease").
    entity_type : str
        Type of the phrase, e.g. a Hetionet kind ("Disease") or an NER label ("CHEMICAL").

    Returns
    -------
    str
        e.g. ``"np:Disease:alzheimer disease"``.

    Raises
    ------
    DataError
        If the name normalises to an empty string or the type is empty.
    """
    key = normalize_name(name)
    if not key or not entity_type.strip():
        raise DataError(f"Cannot build a NounPhrase id from name={name!r}, entity_type={entity_type!r}: "
                        "the name needs a letter or digit and the type must be non-empty.")
    return f"np:{entity_type.strip()}:{key}"
