"""Named errors that carry their data.

They are raised deep and turned into one clear line (and an exit code) once, at
the CLI edge (`ohara_lab.cli`).
"""
from __future__ import annotations

from pathlib import Path

from .redact import redact


class OharaError(Exception):
    """Base of every error ohara-lab raises on purpose; credentials in its message are masked."""

    exit_code = 1

    def __init__(self, *args: object):
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class SettingsError(OharaError):
    """A setting has an unknown name or a value of the wrong kind."""

    exit_code = 2


class UsageError(OharaError):
    """The caller asked for something that cannot be done as asked."""

    exit_code = 2


class IngestError(OharaError):
    """A file could not be ingested; the atlas is unchanged."""

    def __init__(self, path: str | Path, reason: str):
        self.path = str(path)
        self.reason = redact(reason)
        super().__init__(f"{self.path}: {self.reason}")


class IngestInterrupted(OharaError):
    """Ctrl-C during a batch ingest: every finished document is stored whole, the one in progress not at all."""

    exit_code = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C stopped

    def __init__(self, done: int, total: int):
        self.done, self.total = done, total
        super().__init__(f"Interrupted after {done} of {total} documents; the atlas is consistent — "
                         "run the same command again to resume")


class ParseError(IngestError):
    """A file could not be turned into Markdown (corrupt, empty, mislabelled, unsupported)."""


class FetchError(IngestError):
    """A URL could not be fetched (refused, too large, too slow, bad status); nothing was stored."""

    def __init__(self, url: str, reason: str, status: int | None = None):
        self.status = status  # the HTTP status, when the server answered with an error
        super().__init__(url, reason)


class BlockedURL(FetchError):
    """A URL was refused before any traffic: scheme, credentials, or an address that is not public."""


class CaptureError(OharaError):
    """A page could not be rendered by the browser (no Chromium, a crash, a timeout)."""


class NotFoundError(OharaError):
    """The caller named a document or node the atlas does not hold."""

    def __init__(self, what: str):
        self.what = what
        super().__init__(f"no such {what} in the atlas")


class ExportError(OharaError):
    """An export could not be written; whatever was at the target before is still there."""

    def __init__(self, path: str | Path, reason: str):
        self.path = str(path)
        self.reason = redact(reason)
        super().__init__(f"{self.path}: {self.reason}")


class StoreError(OharaError):
    """The graph store refused an operation or is unreachable."""


class DiskFullError(StoreError):
    """A write found the disk (or the atlas's size cap) full; that write was rolled back, earlier ones stand.

    `report`: what an ingest stopped by it had done (set by the ingest loop)."""

    def __init__(self, message: str, report: object = None, detail: str = ""):
        self.report = report
        self.detail = detail or message  # what the store said: which atlas, full disk or size cap
        super().__init__(message)


class EmbeddingError(OharaError):
    """Vectors are missing, or were made by another model than the one asked for."""


class LLMError(OharaError):
    """An LLM call failed after its retries, or returned JSON that violates its schema."""

    def __init__(self, prompt: str, reason: str):
        self.prompt = prompt
        self.reason = redact(reason)
        super().__init__(f"LLM prompt {prompt!r}: {self.reason}")


class OntologyError(OharaError):
    """The SUMO ontology files are missing or could not be built."""


class CurationError(UsageError):
    """An entity curation step cannot be done as asked (unknown entity, empty selection, undo out of order)."""


class AnswerabilityError(OharaError):
    """The answerability model is missing, corrupt, or fitted on other features (fix: `ohara calibrate`)."""
