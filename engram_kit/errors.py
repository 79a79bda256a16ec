"""One exception tree for engram-kit.

Every error raised on purpose by the package derives from :class:`EngramError`, so callers can catch
the package's errors in one place. Messages name the input, the problem and the fix. Low-level errors
(LadybugDB, chromadb, parsing libraries) are converted into these at the boundary of each stage.
"""

from __future__ import annotations


class EngramError(Exception):
    """Base class of all errors raised by engram-kit."""


class DataError(EngramError):
    """Input data is malformed: a bad row, an unknown node kind, a dangling edge endpoint, a bad file."""


class UnknownFileTypeError(DataError):
    """A file's type is not one engram-kit can ingest (the message lists the supported ones)."""


class IngestionError(EngramError):
    """A document could not be ingested; nothing of it was left in the store (status ``error``)."""


class WorkspaceError(EngramError):
    """A workspace folder is missing, not initialised, of another version, or locked by another process."""


class WorkspaceLockedError(WorkspaceError):
    """Another process holds the workspace for writing; open it with ``read_only=True`` instead."""


class ReadOnlyError(WorkspaceError):
    """A write was attempted on a workspace opened read-only."""


class QueryError(EngramError):
    """A question or query is unusable (empty, too long) or a store query failed."""


class QueryGuardError(QueryError):
    """A Cypher query was refused by the read-only guard (write, schema change, unbounded pattern...)."""


class BackendUnavailableError(EngramError):
    """An optional backend or component is not installed or not reachable (Neo4j, a scispaCy model...)."""


class DownloadError(EngramError):
    """A download failed or its checksum did not match; the partial file was removed."""


class LLMError(EngramError):
    """An LLM provider failed (no key, rate limit after retries, unrecorded request in replay mode)."""
