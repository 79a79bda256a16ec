"""Small file helpers shared by every stage that persists state in a workspace folder."""

from __future__ import annotations

from pathlib import Path


def write_atomic(path: str | Path, data: str | bytes, *, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename, so a crash or a full
    disk never leaves a half-written manifest, cassette, conversation or object (the rename is atomic on POSIX).

    Parameters
    ----------
    path : the file to write; its folder is created if missing.
    data : text (written with ``encoding``) or bytes.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        If the folder cannot be written; the previous file, if any, is then unchanged.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    if isinstance(data, bytes):
        tmp.write_bytes(data)
    else:
        tmp.write_text(data, encoding=encoding)
    tmp.replace(path)
    return path
