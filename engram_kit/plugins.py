"""One registry mechanism for every extension point of engram-kit.

Seven kinds of plugin extend the product, each in its own :class:`Registry` below: graph formats (a loader and its
profile), graph-store backends, embedders, agents, NER taggers, LLM providers and vector stores. All seven share
one registration signature, one error type (:class:`PluginError`), one way to list entries and one way to replace
them, and all seven are built on `catalogue <https://github.com/explosion/catalogue>`_, the registry library spaCy
and thinc use, so an outside package registers a plugin through a Python entry point without editing this one::

    # pyproject.toml of an outside package
    [project.entry-points."engram_kit.embedders"]
    my-model = "my_package.embedders:MyEmbedder"

Registration is lazy: :meth:`Registry.register_lazy` records a name, an import path (``"module:attribute"``) and a
one-line description; nothing is imported until :meth:`Registry.get` is called, so ``engram --help`` can list every
choice without importing spaCy, torch or chromadb. Entry points are lazy the same way (their names are read from
the installed distributions' metadata; the module is imported on first :meth:`Registry.get`).

Examples
--------
>>> from engram_kit import plugins
>>> plugins.embedders.register("toy", lambda: object(), description="a toy")  # doctest: +ELLIPSIS
<function <lambda> at ...>
>>> "toy" in plugins.embedders.names()
True
>>> plugins.embedders.unregister("toy")
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

import catalogue

from engram_kit.errors import EngramError

T = TypeVar("T")

#: The namespace every registry lives under in catalogue, and the prefix of the entry-point groups
#: (``engram_kit.formats``, ``engram_kit.backends``, ...).
NAMESPACE = "engram_kit"


class PluginError(EngramError, LookupError):
    """A plugin name is unknown, already taken, or its module cannot be imported.

    The one error every registry raises. It derives from :class:`LookupError` too, so code that caught ``KeyError``
    style failures of a lookup keeps working.
    """


@dataclass(frozen=True)
class LazyEntry:
    """A registered name whose object is imported on first use.

    Attributes
    ----------
    path : str
        ``"package.module:attribute"`` (a dotted attribute after the colon is allowed).
    description : str
        One line for help texts and error messages; shown without importing ``path``.
    """

    path: str
    description: str = ""

    def load(self) -> Any:
        """Import the module and return the attribute.

        Raises
        ------
        PluginError
            If the module cannot be imported or lacks the attribute (the message names the path).
        """
        module_name, _, attribute = self.path.partition(":")
        try:
            obj: Any = importlib.import_module(module_name)
            for part in attribute.split(".") if attribute else ():
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as exc:
            raise PluginError(f"Cannot load plugin {self.path!r}: {exc}. Check the import path given at "
                              f"registration (\"module:attribute\") and that its package is installed.") from exc
        return obj


class Registry(Generic[T]):
    """Named entries of one plugin kind, on top of a :class:`catalogue.Registry` with entry points.

    Parameters
    ----------
    kind : str
        The plugin kind, plural (``"formats"``, ``"backends"``...): the catalogue name and the entry-point group
        ``engram_kit.<kind>``.
    noun : str
        What one entry is called in messages (``"graph format"``, ``"store backend"``...).
    hint : str
        How to add one, for the unknown-name message (e.g. ``"register one with plugins.formats.register"``).

    Notes
    -----
    Entries keep their registration order (built-ins first, then entry points), which is the order
    :meth:`names` returns and the CLI shows.
    """

    def __init__(self, kind: str, noun: str, hint: str = "") -> None:
        self.kind = kind
        self.noun = noun
        self.hint = hint or f"register one with engram_kit.plugins.{kind}.register(name, obj)"
        # Entry points are read here, not by catalogue: catalogue's group would be "engram_kit_<kind>", and the
        # documented groups are "engram_kit.<kind>" (the dotted form Python packaging uses for plugin groups).
        self._catalogue = catalogue.create(NAMESPACE, kind, entry_points=False)
        self._order: list[str] = []
        self._descriptions: dict[str, str] = {}

    # --- registration ------------------------------------------------------------------------------------------
    @overload
    def register(self, name: str, obj: None = None, *, description: str = "",
                 replace: bool = False) -> Callable[[T], T]: ...

    @overload
    def register(self, name: str, obj: T, *, description: str = "", replace: bool = False) -> T: ...

    def register(self, name: str, obj: T | None = None, *, description: str = "",
                 replace: bool = False) -> T | Callable[[T], T]:
        """Register ``obj`` under ``name``; without ``obj``, return a decorator that registers what it decorates.

        Parameters
        ----------
        name : str
            The entry's name (what a manifest records and the CLI offers). Non-empty, no whitespace.
        obj : object, optional
            The entry: a class, a factory or a spec object, whatever the kind's consumer expects.
        description : str
            One line for help texts.
        replace : bool
            Replace an entry of the same name instead of refusing.

        Returns
        -------
        The registered object (so the call works as a decorator).

        Raises
        ------
        PluginError
            If ``name`` is empty or contains whitespace, or is taken and ``replace`` is False.
        """
        if obj is None:
            def decorator(target: T) -> T:
                self._put(name, target, description, replace)
                return target
            return decorator
        self._put(name, obj, description, replace)
        return obj

    def register_lazy(self, name: str, path: str, *, description: str = "", replace: bool = False) -> None:
        """Register ``name`` as the object at ``path`` (``"module:attribute"``), imported on first :meth:`get`.

        Raises
        ------
        PluginError
            As :meth:`register`, and if ``path`` has no ``":"``.
        """
        if ":" not in path:
            raise PluginError(f"Lazy {self.noun} {name!r}: path {path!r} must be \"module:attribute\".")
        self._put(name, LazyEntry(path, description), description, replace)

    def _put(self, name: str, obj: Any, description: str, replace: bool) -> None:
        if not name or any(ch.isspace() for ch in name):
            raise PluginError(f"A {self.noun} name must be non-empty and have no spaces; got {name!r}.")
        if name in self._local() and not replace:
            raise PluginError(f"A {self.noun} named {name!r} is already registered; pick another name or pass "
                              f"replace=True.")
        self._catalogue.register(name, func=obj)
        if name not in self._order:
            self._order.append(name)
        self._descriptions[name] = description or (obj.description if isinstance(obj, LazyEntry) else "") or \
            _first_doc_line(obj)

    def unregister(self, name: str) -> None:
        """Remove ``name`` (tests that register a toy entry clean up with this); unknown names are ignored."""
        if catalogue.check_exists(NAMESPACE, self.kind, name):
            catalogue._remove((NAMESPACE, self.kind, name))  # catalogue has no public delete; this is its own helper
        if name in self._order:
            self._order.remove(name)
        self._descriptions.pop(name, None)

    # --- lookup ------------------------------------------------------------------------------------------------
    def get(self, name: str) -> T:
        """The entry registered as ``name``, imported now if it was registered lazily or by an entry point.

        Raises
        ------
        PluginError
            For an unknown name (the message lists the registered ones and how to add one), or when a lazy entry's
            module cannot be imported.
        """
        if name in self._local():
            obj = self._catalogue.get(name)
        else:
            obj = self._entry_point(name)
            if obj is None:
                raise PluginError(f"Unknown {self.noun} {name!r}; use one of {', '.join(self.names()) or '(none)'} "
                                  f"(or {self.hint}).")
        if isinstance(obj, LazyEntry):
            obj = obj.load()
            self._catalogue.register(name, func=obj)  # resolved once; later gets are a dict lookup
        return obj  # type: ignore[no-any-return]

    def names(self) -> tuple[str, ...]:
        """Registered names in registration order, then entry-point names; imports no plugin module."""
        extra = [n for n in self._entry_point_names() if n not in self._order]
        return (*self._order, *sorted(extra))

    def describe(self, name: str) -> str:
        """The one-line description given at registration (``""`` if none); imports nothing."""
        return self._descriptions.get(name, "")

    def items(self) -> Iterator[tuple[str, T]]:
        """``(name, entry)`` for every entry, importing lazy ones."""
        for name in self.names():
            yield name, self.get(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __repr__(self) -> str:
        return f"<Registry {self.kind}: {', '.join(self.names())}>"

    # --- internals ---------------------------------------------------------------------------------------------
    def _local(self) -> set[str]:
        return {key[-1] for key in catalogue._get_all((NAMESPACE, self.kind))}

    def _entry_point_names(self) -> list[str]:
        return [ep.name for ep in _entry_points(f"{NAMESPACE}.{self.kind}")]

    def _entry_point(self, name: str) -> Any:
        for ep in _entry_points(f"{NAMESPACE}.{self.kind}"):
            if ep.name == name:
                try:
                    obj = ep.load()
                except Exception as exc:  # an outside package's import failure: name it
                    raise PluginError(f"The {self.noun} {name!r} from entry point {ep.value!r} failed to load: "
                                      f"{exc}") from exc
                self._put(name, obj, "", replace=True)
                return obj
        return None


def _entry_points(group: str) -> list[Any]:
    """Entry points of ``group`` in the installed distributions (``importlib.metadata``; no plugin import)."""
    from importlib.metadata import entry_points

    return list(entry_points(group=group))


def _first_doc_line(obj: Any) -> str:
    doc = getattr(obj, "__doc__", None) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


# --- the seven registries -------------------------------------------------------------------------------------------
#: Graph formats: a loader plus its profile (schema, kinds, relation words, negation, provenance label).
formats: Registry[Any] = Registry("formats", "graph format")
#: Graph-store backends (LadybugDB embedded, Neo4j): how a workspace creates and reopens its store.
backends: Registry[Any] = Registry("backends", "store backend")
#: Embedders: factories of :class:`~engram_kit.embeddings.base.BaseEmbedder`.
embedders: Registry[Any] = Registry("embedders", "embedder")
#: Agents: :class:`~engram_kit.agents.registry.AgentSpec` entries.
agents: Registry[Any] = Registry("agents", "agent")
#: NER taggers: span-tagger factories for mention extraction.
ner: Registry[Any] = Registry("ner", "NER tagger")
#: LLM providers: factories of :class:`~engram_kit.llm.base.LLM`.
llm: Registry[Any] = Registry("llm", "LLM provider")
#: Vector stores: factories of the workspace's passage-vector store.
vectors: Registry[Any] = Registry("vectors", "vector store")

#: Every registry by kind, for ``engram plugins`` and tests.
REGISTRIES: dict[str, Registry[Any]] = {r.kind: r for r in (formats, backends, embedders, agents, ner, llm, vectors)}


# --- built-in graph formats: one line each (a format module defines a GraphFormat: loader + profile) ----------------
formats.register_lazy("hetionet", "engram_kit.kg.hetionet:HETIONET_FORMAT",
                      description="Hetionet v1.0 (the bundled sample, a data folder, or the downloaded release)")
formats.register_lazy("kgx", "engram_kit.kg.kgx:KGX_FORMAT",
                      description="a Biolink KGX graph (nodes + edges, TSV or JSON Lines)")
formats.register_lazy("primekg", "engram_kit.kg.primekg:PRIMEKG_FORMAT", description="PrimeKG (its kg.csv)")
