"""Import chromadb without compiling an IRI grammar it never uses.

chromadb's embedding-function registry imports ``jsonschema``, whose format checkers import the optional
``rfc3987_syntax`` when installed (here it comes with the Jupyter stack); that package compiles 38 Lark grammars
at import: 1-4 s of every cold command that touches the vector store (measured with ``python -X importtime``:
``chromadb`` 5.5 s with it, 2.2 s without, on a loaded 2-core machine; issue 30). chromadb validates only its
embedding-function configurations with jsonschema, none of which uses the ``iri`` formats that module checks.
So while chromadb (and so jsonschema) is first imported, ``rfc3987_syntax`` is made unimportable, then made
importable again; in a process that imported jsonschema before, nothing changes.
"""

from __future__ import annotations

import sys

_UNUSED = "rfc3987_syntax"
_guard = _UNUSED not in sys.modules and "jsonschema" not in sys.modules
if _guard:
    sys.modules[_UNUSED] = None  # type: ignore[assignment]  # None makes `import` raise ImportError
try:
    import chromadb
finally:
    if _guard:
        del sys.modules[_UNUSED]

__all__ = ["chromadb"]
