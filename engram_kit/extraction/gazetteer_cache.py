"""A built :class:`~engram_kit.extraction.gazetteer.Gazetteer`, kept on disk between processes.

Building the Aho-Corasick automaton over a workspace's lexicon (180 k keys for Hetionet and its synonym tables)
takes 2-6 s; unpickling it takes a tenth of that (0.65 s against 6.3 s in one run on a loaded 2-core machine,
issue 30). Every cold ``engram ask`` built it, so it is cached: in the workspace's ``cache/gazetteer.pkl`` when
the workspace is open for writing, else (a read-only open never writes into the workspace) in the user's cache
folder (``$XDG_CACHE_HOME/engram-kit``, default ``~/.cache/engram-kit``), under a key that changes whenever the
result could: the lexicon file (path, size, modification time), the source of the modules that decide what the
automaton holds, the engram-kit, pyahocorasick and Python versions. A file whose key differs, or that cannot be
read, is ignored and rebuilt; the cache is a pickle written by engram-kit itself (unpickling runs code: the same
trust as the lexicon cache beside it).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from engram_kit.extraction.gazetteer import Gazetteer
from engram_kit.extraction.lexicon import Lexicon
from engram_kit.files import gc_paused, write_atomic
from engram_kit.settings import Settings
from engram_kit.version import __version__

log = logging.getLogger(__name__)

#: File name of the cache in a workspace's ``cache/`` folder.
WORKSPACE_FILE = "gazetteer.pkl"
#: Modules whose code decides the automaton's content (keys, case rules, stoplists, variants).
_SOURCES: tuple[str, ...] = ("gazetteer.py", "normalize.py", "stopwords.py", "variants.py", "lexicon.py", "mention.py")


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/engram-kit``, default ``~/.cache/engram-kit`` (where read-only opens keep their cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "engram-kit"


def cache_key(lexicon_file: Path) -> str:
    """Hex SHA-256 naming what a gazetteer built from ``lexicon_file`` (an existing file) depends on."""
    stat = lexicon_file.stat()
    digest = hashlib.sha256()
    try:
        aho = version("pyahocorasick")
    except PackageNotFoundError:  # pragma: no cover - a core dependency
        aho = "?"
    for part in (str(lexicon_file.resolve()), str(stat.st_size), str(stat.st_mtime_ns), __version__, aho,
                 sys.version):
        digest.update(part.encode() + b"\0")
    here = Path(__file__).parent
    for name in _SOURCES:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


def _read(path: Path, key: str) -> Gazetteer | None:
    try:
        with path.open("rb") as handle, gc_paused():  # millions of objects allocated, none freed
            payload = pickle.load(handle)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, ImportError):
        return None
    if isinstance(payload, dict) and payload.get("key") == key and isinstance(payload.get("gazetteer"), Gazetteer):
        return payload["gazetteer"]
    return None


def load_or_build(lexicon: Lexicon, lexicon_file: Path, workspace_cache: Path, *, writable: bool) -> Gazetteer:
    """The gazetteer of ``lexicon`` (read from ``lexicon_file``): from a cache whose key matches, else built and
    saved (in ``workspace_cache`` if ``writable``, else in :func:`user_cache_dir`).

    A cache that cannot be written (full disk, read-only folder) is logged and skipped: the built gazetteer is
    returned all the same.
    """
    key = cache_key(lexicon_file)
    own = workspace_cache / WORKSPACE_FILE
    user = user_cache_dir() / f"gazetteer-{key[:24]}.pkl"
    for path in (own,) if writable else (own, user):
        found = _read(path, key)
        if found is not None:
            log.debug("gazetteer read from %s", path)
            return found
    gazetteer = Gazetteer(lexicon)
    target = own if writable else user
    try:
        write_atomic(target, pickle.dumps({"key": key, "gazetteer": gazetteer}, protocol=pickle.HIGHEST_PROTOCOL))
        if not writable:
            _prune(user.parent, keep=target)
    except OSError as exc:
        log.warning("could not cache the gazetteer in %s (%s); it is rebuilt next time", target, exc)
    return gazetteer


#: Gazetteers kept in the user cache folder (about 60 MB each for Hetionet), the most recently written.
USER_CACHE_KEEP: int = Settings.gazetteer_cache_keep


def _prune(folder: Path, *, keep: Path) -> None:
    """Delete all but the :data:`USER_CACHE_KEEP` newest ``gazetteer-*.pkl`` of ``folder`` (never ``keep``)."""
    files = sorted(folder.glob("gazetteer-*.pkl"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[USER_CACHE_KEEP:]:
        if old != keep:
            old.unlink(missing_ok=True)
