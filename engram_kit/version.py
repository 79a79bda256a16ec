"""The package version, in a module of its own so that any layer can read it without importing the package
``__init__`` (whose lazy ``Workspace`` attribute sits at the top of the import layers, docs/architecture.md)."""

from __future__ import annotations

__version__ = "0.1.0"
