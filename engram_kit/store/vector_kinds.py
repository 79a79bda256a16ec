"""Kinds of passage-vector store: where a workspace keeps its vectors (``manifest["vector_store"]["kind"]``).

Each kind is a :class:`VectorKind` in :data:`engram_kit.plugins.vectors`. The built-in ones, :data:`LOCAL` (a
chromadb collection in ``<workspace>/vectors``) and :data:`CHROMA_SERVER` (a collection on a Chroma server), are
registered lazily in :mod:`engram_kit.plugins`; this module imports chromadb only inside the functions that open a
store. A new kind is one module plus one line, ``plugins.vectors.register("name", VectorKind(...))``, or an entry
point in the group ``engram_kit.vectors``; ``Workspace.create(vectors="name")`` then uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engram_kit import plugins
from engram_kit.errors import DataError

if TYPE_CHECKING:
    from engram_kit.store.vectors import VectorStore

#: ``new_entry(workspace folder, options) -> (manifest entry without "kind", options kept for this process)``.
NewEntry = Callable[[Path, Any], "tuple[dict[str, Any], Any]"]
#: ``open(workspace folder, manifest["embedding_model"], manifest["vector_store"], read_only, options) -> store``.
OpenStore = Callable[[Path, "dict[str, Any]", "dict[str, Any]", bool, Any], "VectorStore"]


def _no_options(entry: dict[str, Any]) -> Any:
    return None


def _claims_nothing(value: Any) -> bool:
    return False


def _describe_kind(entry: dict[str, Any]) -> str:
    return str(entry.get("kind", "local"))


@dataclass(frozen=True)
class VectorKind:
    """One place a workspace can keep its passage vectors.

    Attributes
    ----------
    name : str
        Recorded as ``manifest["vector_store"]["kind"]``; the ``vectors=`` argument of ``Workspace.create``.
    new_entry : NewEntry
        The manifest entry of a new workspace (never a secret) and the options to keep for this process; a server
        kind contacts the server here, so a wrong address fails before the knowledge graph is loaded.
    open : OpenStore
        Opens the store a manifest entry records (secrets come from ``options`` or the environment).
    options_from_entry : callable
        The options a recorded entry stands for (a migration's default: the same server); None for none.
    claims : callable
        Whether a ``vectors=`` value other than the kind's name chooses this kind (a Chroma server URL or config).
    in_folder : bool
        The vectors live in ``<workspace>/vectors`` (their count is recorded there, a migration copies the folder,
        ``compact`` rewrites it).
    describe : callable
        One line for ``info()`` from the manifest entry.
    """

    name: str
    new_entry: NewEntry
    open: OpenStore
    options_from_entry: Callable[[dict[str, Any]], Any] = _no_options
    claims: Callable[[Any], bool] = _claims_nothing
    in_folder: bool = False
    describe: Callable[[dict[str, Any]], str] = _describe_kind


def _check_kind(name: str, obj: object) -> None:
    """:attr:`engram_kit.plugins.Registry.validate` of the vector stores: a :class:`VectorKind` of the same name."""
    if not isinstance(obj, VectorKind) or obj.name != name:
        raise plugins.PluginError(f"The vector store {name!r} must be a VectorKind named {name!r}; got {obj!r}.")


plugins.vectors.validate = _check_kind


def choose(vectors: Any) -> tuple[VectorKind, Any]:
    """The kind a ``vectors=`` argument names, and its options.

    ``None`` means ``"local"``; a registered name is that kind with no options; any other value is offered to the
    registered kinds' :attr:`VectorKind.claims` (``"http://host:8000"`` or a ``ChromaServerConfig``: the Chroma
    server kind with that value as its options).

    Raises
    ------
    DataError
        If no kind takes ``vectors`` (the message lists the registered kinds).
    """
    if vectors is None:
        vectors = "local"
    if isinstance(vectors, str) and vectors in plugins.vectors:
        kind: VectorKind = plugins.vectors.get(vectors)
        return kind, None
    for name in plugins.vectors.names():
        candidate: VectorKind = plugins.vectors.get(name)
        if candidate.claims(vectors):
            return candidate, vectors
    raise DataError(f"vectors={vectors!r} is not usable; pass a vector store kind ({', '.join(plugins.vectors.names())})"
                    f", a Chroma server URL such as 'http://localhost:8000', or a ChromaServerConfig.")


def recorded(manifest: dict[str, Any]) -> tuple[VectorKind, dict[str, Any]]:
    """The kind and entry ``manifest["vector_store"]`` records (no entry: ``local``, as manifests before it).

    Raises
    ------
    WorkspaceError
        If the recorded kind is not registered here.
    """
    from engram_kit.errors import WorkspaceError

    entry = manifest.get("vector_store") or {"kind": "local"}
    name = entry.get("kind", "local")
    if name not in plugins.vectors:
        raise WorkspaceError(f"The workspace records an unknown vector store kind {name!r}; this engram-kit knows "
                             f"{', '.join(map(repr, plugins.vectors.names()))}. Install the plugin that provides it, "
                             f"upgrade engram-kit or recreate the workspace.")
    kind: VectorKind = plugins.vectors.get(name)
    return kind, entry


# --- local: a chromadb collection in the workspace folder -----------------------------------------------------
def _local_entry(path: Path, options: Any) -> tuple[dict[str, Any], Any]:
    return {"collection": "passages"}, None


def _local_open(path: Path, model: dict[str, Any], entry: dict[str, Any], read_only: bool, options: Any) -> VectorStore:
    from engram_kit.store.vectors import VectorStore  # chromadb is slow to import

    return VectorStore(path / "vectors", dimension=int(model["dimension"]), model_name=model["name"],
                       read_only=read_only)


#: The ``local`` kind (default).
LOCAL = VectorKind("local", _local_entry, _local_open, in_folder=True, describe=lambda entry: "local")


# --- chroma-server: a collection on a Chroma server ----------------------------------------------------------
def _is_chroma_server(value: Any) -> bool:
    if isinstance(value, str):
        return "://" in value
    from engram_kit.store.vectors import ChromaServerConfig

    return isinstance(value, ChromaServerConfig)


def _server_config(options: Any) -> Any:
    """``options`` as a ``ChromaServerConfig`` (a URL string is parsed; None reads nothing and is refused)."""
    from engram_kit.store.vectors import ChromaServerConfig

    if isinstance(options, str):
        return ChromaServerConfig(options)
    if not isinstance(options, ChromaServerConfig):
        raise DataError(f"The chroma-server vector store needs a server URL or a ChromaServerConfig; got {options!r} "
                        "(CLI: --chroma-url URL).")
    return options


def _server_entry(path: Path, options: Any) -> tuple[dict[str, Any], Any]:
    from engram_kit.store.vectors import workspace_collection_name

    config = _server_config(options)
    config.connect().close()
    return {**config.to_manifest(), "collection": workspace_collection_name(path)}, config


def _server_open(path: Path, model: dict[str, Any], entry: dict[str, Any], read_only: bool,
                 options: Any) -> VectorStore:
    from engram_kit.store.vectors import ChromaServerConfig, VectorStore

    config = options if options is not None else ChromaServerConfig.from_manifest(entry)
    return VectorStore(None, dimension=int(model["dimension"]), model_name=model["name"], read_only=read_only,
                       server=config, collection=entry["collection"])


def _server_options(entry: dict[str, Any]) -> Any:
    from engram_kit.store.vectors import ChromaServerConfig

    return ChromaServerConfig.from_manifest(entry)


#: The ``chroma-server`` kind: chosen by a server URL or a ``ChromaServerConfig`` (``--chroma-url``).
CHROMA_SERVER = VectorKind(
    "chroma-server", _server_entry, _server_open, options_from_entry=_server_options, claims=_is_chroma_server,
    describe=lambda entry: f"chroma-server {entry.get('url', '?')} collection {entry.get('collection', '?')}")
