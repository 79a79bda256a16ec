"""Graph formats: a loader and its profile, registered together in ``engram_kit.plugins.formats``.

A :class:`GraphFormat` is everything engram-kit needs to hold a knowledge graph of one format: how to read it
(``loader``), which :class:`~engram_kit.kg.profiles.GraphProfile` describes it (display and citation names,
relation and kind words, fallback relations, provenance, applicable agents and desk templates), what its input
is (``data_help``) and which options its loader takes (``options``, e.g. KGX's nodes file). The schema a loaded
graph carries (:attr:`KnowledgeGraph.schema <engram_kit.kg.graph.KnowledgeGraph.schema>`) is named like the
format, so :func:`engram_kit.kg.profiles.profile_for` finds the profile from a workspace's schema.

The built-in formats are registered lazily in :mod:`engram_kit.plugins` (one line each: ``hetionet``, ``kgx``,
...), so listing them (``engram init --help``) imports no loader. A new format is one module defining a
``GraphFormat`` plus one line::

    from engram_kit import plugins
    plugins.formats.register_lazy("mygraph", "my_package.mygraph:MYGRAPH_FORMAT", description="My graph (CSV)")

or, from an outside package, an entry point in the group ``engram_kit.formats``.

No code path picks a format for the caller: :meth:`engram_kit.workspace.Workspace.create` takes a loaded graph
or a format name (``graph="hetionet"``), the CLI's ``engram init --graph`` names its default (``hetionet``) in
its help, and the manifest records the format (``knowledge_graph.format``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from engram_kit import plugins
from engram_kit.errors import DataError

if TYPE_CHECKING:
    from engram_kit.kg.graph import KnowledgeGraph
    from engram_kit.kg.profiles import GraphProfile
    from engram_kit.kg.schema import GraphSchema


class GraphLoader(Protocol):
    """A format's loader: ``loader(data, *, name, release, options, progress) -> KnowledgeGraph``.

    ``data`` is the format's input (a path, or a :class:`~engram_kit.datasets.DataPaths` for Hetionet), None
    for the format's bundled sample (a format without one raises :class:`DataError`). ``name`` and ``release``
    are recorded as the graph's name and version ("" = the format's own). ``options`` are the format's
    options (:attr:`GraphFormat.options`) as strings, as the CLI passes them.
    """

    def __call__(self, data: Any, *, name: str, release: str, options: Mapping[str, str],
                 progress: bool) -> KnowledgeGraph: ...


def _no_options() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True)
class GraphFormat:
    """One graph format: its loader and its profile (see the module docstring).

    Attributes
    ----------
    name : str
        The registry name, the schema name its graphs carry and the profile's ``name`` (``"hetionet"``).
    profile : GraphProfile
        What differs for this format downstream (:mod:`engram_kit.kg.profiles`).
    loader : GraphLoader or None
        Reads the format (:class:`GraphLoader`); None for a format registered by its profile alone (the
        deprecated :func:`~engram_kit.kg.profiles.register_profile`), whose graphs are loaded by the caller.
    description : str
        One line for help texts ("Hetionet v1.0 node and edge TSVs").
    data_help : str
        What ``data`` (CLI ``--data``) is for this format, and what None loads.
    options : mapping of str to str
        Option name -> help, the options the loader reads (CLI ``--option NAME=VALUE``); others are refused.
    schema : GraphSchema or None
        The format's fixed schema when it has one (Hetionet v1.0): what a stored answer of that format
        is read against without its workspace (:func:`fixed_schema`). None when the schema is derived from the
        data (KGX).
    report_lines : callable or None
        ``report_lines(kg) -> list of str``: what ``engram init`` prints about a loaded graph beyond its totals
        (KGX: stubs, negated edges, skipped rows); None prints nothing more.
    """

    name: str
    profile: GraphProfile
    loader: GraphLoader | None = None
    description: str = ""
    data_help: str = ""
    options: Mapping[str, str] = field(default_factory=_no_options)
    schema: GraphSchema | None = None
    report_lines: Callable[[KnowledgeGraph], list[str]] | None = None

    def __post_init__(self) -> None:
        if self.profile.name != self.name:
            raise DataError(f"GraphFormat {self.name!r} holds the profile of {self.profile.name!r}; a format's "
                            "profile, schema and registry name must be the same name.")
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))

    def load(self, data: Any = None, *, name: str = "", release: str = "", options: Mapping[str, str] | None = None,
             progress: bool = True) -> KnowledgeGraph:
        """Read a graph of this format (see :class:`GraphLoader`).

        Raises
        ------
        DataError
            If an option is not one of :attr:`options` (the message lists them), the format has no loader, or
            the loader refuses the data (its own message).
        """
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            known = ", ".join(f"{k} ({v})" for k, v in self.options.items()) or "none"
            raise DataError(f"The {self.name} graph format has no option(s) {unknown}; its options: {known}.")
        if self.loader is None:
            raise DataError(f"The {self.name} graph format was registered without a loader (a profile only); load "
                            "the graph with its own loader and pass it as Workspace.create(path, graph=kg).")
        return self.loader(data, name=name, release=release, options=options, progress=progress)


def register_format(fmt: GraphFormat, *, replace: bool = False) -> GraphFormat:
    """Register ``fmt`` now (not lazily) under ``fmt.name`` with its description; returns it.

    Raises
    ------
    PluginError
        If the name is taken and ``replace`` is False.
    """
    plugins.formats.register(fmt.name, fmt, description=fmt.description, replace=replace)
    return fmt


def get_format(name: str) -> GraphFormat:
    """The format registered as ``name`` (imports its module on first use).

    Raises
    ------
    PluginError
        For an unknown name (the message lists the registered formats) or an entry that is not a GraphFormat.
    """
    found = plugins.formats.get(name)
    if not isinstance(found, GraphFormat):
        raise plugins.PluginError(f"The graph format {name!r} is registered as {type(found).__name__}, not a "
                                  "GraphFormat; register engram_kit.kg.formats.GraphFormat(name, profile, loader).")
    return found


def fixed_schema(name: str) -> GraphSchema | None:
    """The fixed schema of the format ``name`` (:attr:`GraphFormat.schema`), None for a format whose schema comes
    from its data, an unknown name or ``""``."""
    if not name:
        return None
    try:
        return get_format(name).schema
    except plugins.PluginError:
        return None


def format_names() -> tuple[str, ...]:
    """Registered format names, built-ins first (imports no format module)."""
    return plugins.formats.names()


def load_graph(format_name: str, data: Any = None, *, name: str = "", release: str = "",
               options: Mapping[str, str] | None = None, progress: bool = True) -> KnowledgeGraph:
    """``get_format(format_name).load(data, ...)``: read a graph of a registered format by name.

    Raises
    ------
    PluginError
        For an unknown format.
    DataError
        As :meth:`GraphFormat.load`.
    """
    return get_format(format_name).load(data, name=name, release=release, options=options, progress=progress)


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """CLI ``--option NAME=VALUE`` strings -> a dict.

    Raises
    ------
    DataError
        For a string without ``=`` or with an empty name.
    """
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise DataError(f"--option {pair!r} is not NAME=VALUE (e.g. --option nodes=graph_nodes.tsv).")
        out[key.strip()] = value
    return out


def option_flag(options: Mapping[str, str], name: str, default: bool = False) -> bool:
    """A boolean option given as text (``true/false/yes/no/1/0``).

    Raises
    ------
    DataError
        For another value.
    """
    value = options.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise DataError(f"Option {name}={value!r} is not a boolean; use true or false.")

