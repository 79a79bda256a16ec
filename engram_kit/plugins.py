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
import sys
from collections.abc import Callable, Iterator, Mapping
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
    reserved : iterable of str
        Names no entry may take (agents: ``synthesis`` and ``router`` are not domain agents).
    validate : callable, optional
        ``validate(name, obj)`` raises :class:`PluginError` when ``obj`` is not a usable entry of this kind (e.g. an
        agent spec whose ``name`` differs from the registered name). Called when an object is registered, and for
        lazy and entry-point entries when they are first loaded.

    Notes
    -----
    Entries keep their registration order (built-ins first, then entry points), which is the order
    :meth:`names` returns and the CLI shows.
    """

    def __init__(self, kind: str, noun: str, hint: str = "", *, reserved: tuple[str, ...] = (),
                 validate: Callable[[str, Any], None] | None = None) -> None:
        self.kind = kind
        self.noun = noun
        self.hint = hint or f"register one with engram_kit.plugins.{kind}.register(name, obj)"
        self.reserved = frozenset(reserved)
        self.validate = validate
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
        if name in self.reserved:
            raise PluginError(f"{name!r} is reserved ({', '.join(sorted(self.reserved))} are not {self.noun}s); "
                              f"name the {self.noun} something else.")
        if self._has(name) and not replace:
            raise PluginError(f"A {self.noun} named {name!r} is already registered; pick another name or pass "
                              f"replace=True.")
        if self.validate is not None and not isinstance(obj, LazyEntry):
            self.validate(name, obj)
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
        if self._has(name):
            obj = self._catalogue.get(name)
        else:
            obj = self._entry_point(name)
            if obj is None:
                raise PluginError(f"Unknown {self.noun} {name!r}; use one of {', '.join(self.names()) or '(none)'} "
                                  f"(or {self.hint}).")
        if isinstance(obj, LazyEntry):
            obj = obj.load()
            if self.validate is not None:
                self.validate(name, obj)
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

    def help(self, default: str | None = None) -> str:
        """``"name1 (default): description; name2: description"`` for a CLI help text; imports nothing.

        ``%`` is doubled (argparse formats help strings with ``%``)."""
        parts = [f"{n}{' (default)' if n == default else ''}{': ' + self.describe(n) if self.describe(n) else ''}"
                 for n in self.names()]
        return "; ".join(parts).replace("%", "%%")

    def as_mapping(self) -> Mapping[str, T]:
        """A read-only ``Mapping`` view (name -> entry, imported on access): for code written against the
        dictionaries the registries replaced (``EMBEDDERS[key]``)."""
        return _RegistryView(self)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __repr__(self) -> str:
        return f"<Registry {self.kind}: {', '.join(self.names())}>"

    # --- internals ---------------------------------------------------------------------------------------------
    def _has(self, name: str) -> bool:
        """Whether ``name`` is registered in code (not only by an entry point): one dict lookup."""
        return bool(catalogue.check_exists(NAMESPACE, self.kind, name))

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


class _RegistryView(Mapping[str, T]):
    """Read-only mapping over a :class:`Registry` (see :meth:`Registry.as_mapping`)."""

    def __init__(self, registry: Registry[T]) -> None:
        self._registry = registry

    def __getitem__(self, name: str) -> T:
        if name not in self._registry:
            raise KeyError(name)
        return self._registry.get(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._registry.names())

    def __len__(self) -> int:
        return len(self._registry.names())

    def __contains__(self, name: object) -> bool:
        return name in self._registry


_ENTRY_POINTS: dict[tuple[str, ...], dict[str, list[Any]]] = {}


def _entry_points(group: str) -> list[Any]:
    """Entry points of ``group`` in the installed distributions (``importlib.metadata``; no plugin import).

    The distributions' metadata is read once per ``sys.path`` (a path added later, e.g. a test's distribution,
    is seen on the next call)."""
    from importlib.metadata import entry_points

    key = tuple(sys.path)
    if key not in _ENTRY_POINTS:
        _ENTRY_POINTS.clear()
        _ENTRY_POINTS[key] = {"": [entry_points()]}  # every distribution's entry points, read once
    groups = _ENTRY_POINTS[key]
    if group not in groups:
        groups[group] = list(groups[""][0].select(group=group))
    return list(groups[group])


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
#: Agents: :class:`~engram_kit.agents.registry.AgentSpec` entries (``synthesis`` and ``router`` are not agents:
#: synthesis runs last over the others, the router emits status events).
agents: Registry[Any] = Registry("agents", "agent", reserved=("synthesis", "router"))
#: NER taggers: :class:`~engram_kit.extraction.ner.NerBackend` entries (availability check + span-tagger factory).
ner: Registry[Any] = Registry("ner", "NER tagger")
#: LLM providers: ``factory(*, model, cassette) -> LLM | None`` (:func:`engram_kit.llm.factory.build_llm`).
llm: Registry[Any] = Registry("llm", "LLM provider")
#: Vector stores: :class:`~engram_kit.store.vector_kinds.VectorKind` entries (``manifest["vector_store"]["kind"]``).
vectors: Registry[Any] = Registry("vectors", "vector store")

#: Every registry by kind, for ``engram plugins`` and tests.
REGISTRIES: dict[str, Registry[Any]] = {r.kind: r for r in (formats, backends, embedders, agents, ner, llm, vectors)}


# --- built-in graph formats: one line each (a format module defines a GraphFormat: loader + profile) ----------------
formats.register_lazy("hetionet", "engram_kit.kg.hetionet:HETIONET_FORMAT",
                      description="Hetionet v1.0 (the bundled sample, a data folder, or the downloaded release)")
formats.register_lazy("kgx", "engram_kit.kg.kgx:KGX_FORMAT",
                      description="a Biolink KGX graph (nodes + edges, TSV or JSON Lines)")
formats.register_lazy("primekg", "engram_kit.kg.primekg:PRIMEKG_FORMAT", description="PrimeKG (its kg.csv)")

# --- the built-in entries -------------------------------------------------------------------------------------------
# One lazy line each (name, "module:attribute", description): listing them (`engram --help`, `engram plugins`)
# imports none of these modules. An outside package adds entries the same way, or through an entry point.
backends.register_lazy("ladybug", "engram_kit.store.registry:LADYBUG",
                       description="embedded LadybugDB file in the workspace folder")
backends.register_lazy("neo4j", "engram_kit.store.registry:NEO4J",
                       description="Neo4j 5 server + Graph Data Science, PPR on the server (docs/scaling-out.md)")

embedders.register_lazy("minilm-onnx-int8", "engram_kit.embeddings.minilm:MiniLMOnnxInt8Embedder",
                        description="all-MiniLM-L6-v2 exported to ONNX and int8-quantised locally at first use")
embedders.register_lazy("minilm-fp32", "engram_kit.embeddings.minilm:MiniLMEmbedder",
                        description="all-MiniLM-L6-v2, sentence-transformers fp32 (bundled weights)")
embedders.register_lazy("minilm-onnx-int8-v3", "engram_kit.embeddings.minilm:MiniLMOnnxInt8V3Embedder",
                        description="the v3 int8 recipe, kept so workspaces built with it reopen")
embedders.register_lazy("static", "engram_kit.embeddings.static:StaticEmbedder",
                        description="static model distilled from MiniLM; bulk ingestion ~7x the abstracts/s, "
                                    "BioASQ dense nDCG@10 0.70 vs 0.85 (benchmarks/results/ingest.md)")

agents.register_lazy("literature", "engram_kit.agents.builtin:LITERATURE",
                     description="cited answer from the ingested literature")
agents.register_lazy("pathway", "engram_kit.agents.builtin:PATHWAY",
                     description="pathways and graph paths between the question's genes and diseases")
agents.register_lazy("drug", "engram_kit.agents.builtin:DRUG",
                     description="compounds, targets and repurposing candidates")
agents.register_lazy("phenotype", "engram_kit.agents.builtin:PHENOTYPE",
                     description="diseases and phenotypes (Biolink graphs)")

ner.register_lazy("bc5cdr-cnn", "engram_kit.extraction.ner:BUNDLED_NER_BACKEND",
                  description="bundled spaCy CNN trained on the BC5CDR training split (chemicals, diseases)")
ner.register_lazy("bc5cdr-terms", "engram_kit.extraction.ner:CORPUS_TERMS_BACKEND",
                  description="annotated terms of the BC5CDR training split, matched as a dictionary")

llm.register_lazy("none", "engram_kit.llm.factory:no_llm",
                  description="no LLM: offline templates and extractive answers")
llm.register_lazy("offline", "engram_kit.llm.factory:offline_llm",
                  description="deterministic extractive stand-in (returns only sentences of its input)")
llm.register_lazy("anthropic", "engram_kit.llm.factory:anthropic_llm",
                  description="Claude through the anthropic SDK ($ANTHROPIC_API_KEY)")
llm.register_lazy("record", "engram_kit.llm.factory:recording_llm",
                  description="Claude, every exchange written to --cassette")
llm.register_lazy("replay", "engram_kit.llm.factory:replaying_llm",
                  description="answers from --cassette, no network")

vectors.register_lazy("local", "engram_kit.store.vector_kinds:LOCAL",
                      description="chromadb collection in the workspace folder")
vectors.register_lazy("chroma-server", "engram_kit.store.vector_kinds:CHROMA_SERVER",
                      description="a Chroma server (`chroma run`; token from $CHROMA_TOKEN; docs/scaling-out.md)")
