"""Biolink Model helpers for the KGX loader: categories, predicates, labels and relationship types.

Everything here reads the Biolink Model YAML shipped inside the ``biolink-model`` package (pinned to 4.4.6 in
``pyproject.toml``) through the Biolink Model Toolkit (``bmt``), so it works offline. ``bmt.Toolkit()`` with
no arguments downloads the model from GitHub; :func:`biolink_toolkit` never does.

Naming conventions (how a KGX graph becomes a store schema):

* node label = the local name of the most specific Biolink category (``biolink:PhenotypicFeature`` ->
  ``PhenotypicFeature``); see :func:`most_specific_category` and :func:`category_label`;
* relationship type = the predicate's local name in upper snake case (``biolink:has_phenotype`` ->
  ``HAS_PHENOTYPE``); see :func:`predicate_rel_type`;
* a predicate the model declares ``symmetric`` (``biolink:interacts_with``, ``biolink:related_to``...) gives
  an undirected relationship type; see :func:`is_symmetric_predicate`.

References
----------
Unni DR et al. "Biolink Model: A universal schema for knowledge graphs in clinical, biomedical, and
translational science." Clin Transl Sci 15(8):1848-1855 (2022). https://doi.org/10.1111/cts.13302
Biolink Model Toolkit: https://github.com/biolink/biolink-model-toolkit (BSD-3-Clause).
"""

from __future__ import annotations

import importlib.resources
import logging
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from engram_kit.errors import BackendUnavailableError

if TYPE_CHECKING:
    from bmt import Toolkit

logger = logging.getLogger(__name__)

#: Category of a node whose category is absent or cannot be inferred (Biolink's root entity class).
NAMED_THING = "biolink:NamedThing"
#: Prefix of Biolink Model CURIEs.
BIOLINK_PREFIX = "biolink"

# prefix:local. The prefix follows the W3C/bioregistry habits (KEGG.GENES, PomBase, NCBITaxon, urn);
# the local part is anything without whitespace (REACT:R-HSA-5635838, PomBase:SPAC6G9.11).
#: Pattern of a CURIE (see :func:`is_curie`).
CURIE_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*:\S+$")
_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]+")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


# ------------------------------------------------------------------------------------------------
# The toolkit (offline)
# ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def biolink_toolkit() -> Toolkit:
    """The Biolink Model Toolkit over the model YAML bundled in ``biolink-model`` (no network).

    Loading takes about 0.6 s, so the toolkit is built once per process and cached.

    Returns
    -------
    bmt.Toolkit
        Toolkit for Biolink Model 4.4.6 (the ``biolink-model`` package version); the predicate-mapping
        file (only used to map non-Biolink predicates) is replaced by an empty mapping so that nothing is
        fetched.

    Raises
    ------
    BackendUnavailableError
        If ``bmt`` or ``biolink-model`` is not installed, or the bundled YAML is missing.
    """
    try:
        from bmt import Toolkit
    except ImportError as exc:  # pragma: no cover - both are core dependencies
        raise BackendUnavailableError("The Biolink Model Toolkit is not installed. Fix: pip install "
                                      "'bmt>=1.5,<2' 'biolink-model==4.4.6'.") from exc
    try:
        schema = importlib.resources.files("biolink_model") / "schema" / "biolink_model.yaml"
    except ModuleNotFoundError as exc:  # pragma: no cover
        raise BackendUnavailableError("The biolink-model package is not installed. Fix: pip install "
                                      "'biolink-model==4.4.6'.") from exc
    if not schema.is_file():  # pragma: no cover - a broken install
        raise BackendUnavailableError(f"{schema} is missing from the biolink-model package. Fix: reinstall "
                                      "it with pip install --force-reinstall 'biolink-model==4.4.6'.")
    # A str path (not a URL) and an explicit predicate map keep bmt from downloading anything.
    return Toolkit(schema=str(schema), predicate_map={"predicate mappings": []})


def biolink_model_version() -> str:
    """Version of the Biolink Model the toolkit loaded, e.g. ``"4.4.6"``."""
    return str(biolink_toolkit().get_model_version())


# ------------------------------------------------------------------------------------------------
# CURIEs and names
# ------------------------------------------------------------------------------------------------
def is_curie(value: str) -> bool:
    """True for ``prefix:local`` with a prefix of letters, digits, ``_ . -`` (starting with a letter or
    ``_``) and a non-empty local part without whitespace (``HGNC:1884``, ``urn:uuid:6c07...``)."""
    return bool(CURIE_PATTERN.match(value))


def curie_prefix(curie: str) -> str:
    """``"PomBase:SPAC6G9.11"`` -> ``"PomBase"`` (``""`` when there is no colon)."""
    prefix, sep, _ = curie.partition(":")
    return prefix if sep else ""


def _identifier(text: str, fallback_prefix: str) -> str:
    """Deterministic plain identifier ``[A-Za-z][A-Za-z0-9_]*`` from any text."""
    name = _NOT_IDENTIFIER.sub("_", text).strip("_")
    if not name:
        return fallback_prefix.rstrip("_")
    return name if name[0].isalpha() else fallback_prefix + name


#: Names a domain label or relationship type may not take: engram-kit's own literature/metadata tables (a Biolink
#: ``Article`` category or ``mentions`` predicate would otherwise merge into them) and Cypher's reserved words
#: (openCypher 9 keywords plus LadybugDB/Neo4j ones seen failing: ``Case``, ``Where``...). Compared case-insensitively.
RESERVED_NAMES: frozenset[str] = frozenset(name.upper() for name in (
    "Article", "Section", "Passage", "NounPhrase", "EngramMeta",
    "HAS_SECTION", "CONTAINS", "MENTIONS", "MAPS_TO", "SAME_AS",
    "ALL", "AND", "AS", "ASC", "ASCENDING", "BY", "CALL", "CASE", "CONSTRAINT", "CONTAINS", "COPY", "COUNT",
    "CREATE", "DELETE", "DESC", "DESCENDING", "DETACH", "DISTINCT", "DROP", "ELSE", "END", "ENDS", "EXISTS",
    "EXPLAIN", "FALSE", "FOR", "FROM", "GROUP", "IN", "INDEX", "IS", "KEY", "LIMIT", "LOAD", "MACRO", "MANDATORY",
    "MATCH", "MERGE", "NODE", "NOT", "NULL", "OF", "ON", "OPTIONAL", "OR", "ORDER", "PRIMARY", "PROFILE", "REL",
    "REMOVE", "RETURN", "SET", "SKIP", "STARTS", "TABLE", "THEN", "TO", "TRUE", "UNION", "UNIQUE", "UNWIND",
    "USE", "WHEN", "WHERE", "WITH", "XOR", "YIELD", "GROUP", "BEGIN", "COMMIT", "ROLLBACK", "TRANSACTION",
    "ATTACH", "DETACH", "EXPORT", "IMPORT", "DATABASE", "GRAPH", "SHORTEST", "ALL_SHORTEST", "RECURSIVE",
))


def _unreserved(name: str, prefix: str) -> str:
    """``name``, or ``prefix + name`` when it clashes with :data:`RESERVED_NAMES` (``Case`` -> ``Biolink_Case``)."""
    return prefix + name if name.upper() in RESERVED_NAMES else name


def category_label(category: str) -> str:
    """Graph label of a category CURIE.

    ``biolink:PhenotypicFeature`` -> ``PhenotypicFeature``; another vocabulary keeps its prefix
    (``SIO:010004`` -> ``SIO_010004``); characters outside ``[A-Za-z0-9_]`` become ``_`` and a label not
    starting with a letter gets ``C_`` in front, so the result is always a plain identifier; a name in
    :data:`RESERVED_NAMES` gets ``Biolink_`` in front (``biolink:Case`` -> ``Biolink_Case``,
    ``biolink:Article`` -> ``Biolink_Article``, apart from engram-kit's own Article table).
    """
    prefix, sep, local = category.partition(":")
    text = local if sep and prefix == BIOLINK_PREFIX else category
    return _unreserved(_identifier(text, "C_"), "Biolink_")


def predicate_rel_type(predicate: str) -> str:
    """Relationship type of a predicate CURIE: upper snake case of the local name.

    ``biolink:has_phenotype`` -> ``HAS_PHENOTYPE``; camel case is split (``biolink:hasPhenotype`` ->
    ``HAS_PHENOTYPE``); another vocabulary keeps its prefix (``RO:0002434`` -> ``RO_0002434``); characters
    outside ``[A-Za-z0-9_]`` become ``_`` and a name not starting with a letter gets ``R_`` in front; a name
    in :data:`RESERVED_NAMES` gets ``BIOLINK_`` in front (``biolink:mentions`` -> ``BIOLINK_MENTIONS``).
    """
    prefix, sep, local = predicate.partition(":")
    text = local if sep and prefix == BIOLINK_PREFIX else predicate
    return _unreserved(_identifier(_CAMEL_BOUNDARY.sub("_", text), "R_").upper(), "BIOLINK_")


# ------------------------------------------------------------------------------------------------
# Model look-ups (cached: a graph has few distinct categories and predicates)
# ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def _class_name(curie: str) -> str | None:
    """bmt element name of a Biolink class CURIE, or None if the CURIE is not exactly a model class.

    bmt's ``get_element`` also matches aliases and case variants (``biolink:gene``); those are treated as
    unknown here so that the data's spelling is never silently rewritten.
    """
    if not curie.startswith(BIOLINK_PREFIX + ":"):
        return None
    from bmt.utils import format_element
    from linkml_runtime.linkml_model.meta import ClassDefinition

    element = biolink_toolkit().get_element(curie)
    if isinstance(element, ClassDefinition) and format_element(element) == curie:
        return str(element.name)
    return None


@lru_cache(maxsize=4096)
def _predicate_name(curie: str) -> str | None:
    """bmt element name of a Biolink predicate CURIE, or None (exact spelling only, as :func:`_class_name`)."""
    if not curie.startswith(BIOLINK_PREFIX + ":"):
        return None
    from bmt.utils import format_element
    from linkml_runtime.linkml_model.meta import SlotDefinition

    toolkit = biolink_toolkit()
    element = toolkit.get_element(curie)
    if isinstance(element, SlotDefinition) and format_element(element) == curie and toolkit.is_predicate(curie):
        return str(element.name)
    return None


def is_known_category(category: str) -> bool:
    """True if ``category`` is exactly the CURIE of a Biolink Model class (entity, mixin or association)."""
    return _class_name(category) is not None


def is_association(category: str) -> bool:
    """True if ``category`` is a Biolink association class (``biolink:GeneToPhenotypicFeatureAssociation``)."""
    return is_known_category(category) and bool(biolink_toolkit().is_association(category))


def is_known_predicate(predicate: str) -> bool:
    """True if ``predicate`` is exactly the CURIE of a Biolink predicate (``biolink:has_phenotype``)."""
    return _predicate_name(predicate) is not None


@lru_cache(maxsize=4096)
def is_symmetric_predicate(predicate: str) -> bool:
    """True if the Biolink Model declares the predicate symmetric (``biolink:interacts_with``,
    ``biolink:related_to``, ``biolink:orthologous_to``...). Unknown predicates are not (treated as directed)."""
    name = _predicate_name(predicate)
    return bool(name) and bool(biolink_toolkit().get_element(name).symmetric)


@lru_cache(maxsize=4096)
def _ancestors(category: str) -> frozenset[str]:
    """Category CURIE and all its ancestors (is_a and mixins), as CURIEs; the category alone if unknown."""
    if _class_name(category) is None:
        return frozenset((category,))
    return frozenset(biolink_toolkit().get_ancestors(category, reflexive=True, formatted=True, mixin=True))


@lru_cache(maxsize=4096)
def _depth(category: str) -> int:
    """is_a depth of a known category (``biolink:Entity`` = 0, ``biolink:Gene`` = 3); -1 when unknown."""
    if _class_name(category) is None:
        return -1
    return int(biolink_toolkit().get_element_depth(category, formatted=True))


def most_specific_category(categories: Sequence[str]) -> str:
    """The most specific of a node's categories.

    Parameters
    ----------
    categories : sequence of str
        Category CURIEs of one node, in the data's order (``["biolink:Gene", "biolink:NamedThing"]``).

    Returns
    -------
    str
        The known category whose ancestors (is_a and mixins) include every other known category; if none
        does (categories on separate branches), the deepest in the is_a tree, ties to the first listed.
        Categories unknown to the model are only chosen when no category is known (then the first one);
        :data:`NAMED_THING` for an empty sequence.

    Examples
    --------
    >>> most_specific_category(["biolink:NamedThing", "biolink:Gene"])
    'biolink:Gene'
    """
    unique = list(dict.fromkeys(c for c in categories if c))
    if not unique:
        return NAMED_THING
    known = [c for c in unique if is_known_category(c)]
    if not known:
        return unique[0]
    for candidate in known:
        if all(other in _ancestors(candidate) for other in known):
            return candidate
    deepest = max(_depth(c) for c in known)
    return next(c for c in known if _depth(c) == deepest)


# ------------------------------------------------------------------------------------------------
# Inferring an endpoint's category from an association (for stub nodes)
# ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1024)
def association_range(association: str, role: Literal["subject", "object"]) -> str:
    """Category CURIE the Biolink Model gives the subject or object of an association class.

    Read from ``slot_usage`` of the association, then of its ancestors (is_a and mixins, nearest first):
    ``biolink:GeneToPhenotypicFeatureAssociation`` -> subject ``biolink:GeneOrGeneProduct`` (a mixin),
    object ``biolink:PhenotypicFeature``. :data:`NAMED_THING` when the association is unknown or no
    range is declared.
    """
    if not is_association(association):
        return NAMED_THING
    toolkit = biolink_toolkit()
    for ancestor in toolkit.get_ancestors(association, reflexive=True, formatted=True, mixin=True):
        element = toolkit.get_element(ancestor)
        usage = (getattr(element, "slot_usage", None) or {}).get(role)
        range_name = getattr(usage, "range", None)
        if range_name:
            range_element = toolkit.get_element(str(range_name))
            if range_element is not None:
                from bmt.utils import format_element

                return format_element(range_element)
    return NAMED_THING


@lru_cache(maxsize=4096)
def _concrete_with_prefix(range_category: str, prefix: str) -> str | None:
    """The shallowest non-mixin class at or under ``range_category`` whose Biolink ``id_prefixes`` list
    ``prefix``; None when there is none or the shallowest depth is shared (ambiguous)."""
    if not prefix or _class_name(range_category) is None:
        return None
    toolkit = biolink_toolkit()
    matches = []
    for candidate in toolkit.get_descendants(range_category, reflexive=True, formatted=True, mixin=True):
        element = toolkit.get_element(candidate)
        if element is None or getattr(element, "mixin", False) or prefix not in (element.id_prefixes or []):
            continue
        matches.append((_depth(candidate), candidate))
    if not matches:
        return None
    shallowest = min(depth for depth, _ in matches)
    best = [c for depth, c in matches if depth == shallowest]
    return best[0] if len(best) == 1 else None


def infer_endpoint_category(curie: str, association: str, role: Literal["subject", "object"]) -> str:
    """Category of an edge endpoint that has no node row, from the edge's association category.

    Parameters
    ----------
    curie : str
        The endpoint's CURIE (``"PomBase:SPAC6G9.11"``); its prefix refines a broad range.
    association : str
        The edge's association category (``"biolink:GeneToPhenotypicFeatureAssociation"``, or ``""``).
    role : {"subject", "object"}

    Returns
    -------
    str
        Within the association's declared range (:func:`association_range`, :data:`NAMED_THING` when
        there is none): the shallowest non-mixin class whose Biolink ``id_prefixes`` include the CURIE's
        prefix (``PomBase`` -> ``biolink:Gene``, ``FYPO`` -> ``biolink:PhenotypicFeature``); else the range
        itself when it is a concrete class; else :data:`NAMED_THING`.
    """
    range_category = association_range(association, role) if association else NAMED_THING
    by_prefix = _concrete_with_prefix(range_category, curie_prefix(curie))
    if by_prefix is not None:
        return by_prefix
    element = biolink_toolkit().get_element(range_category) if is_known_category(range_category) else None
    if element is not None and not getattr(element, "mixin", False):
        return range_category
    return NAMED_THING
