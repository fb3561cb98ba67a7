"""`AtlasService`: one atlas, one engine, shared by every request of a server process.

`ohara serve` (HTTP) and `ohara mcp` (MCP) are thin shells over this class, which is
itself a thin shell over `Atlas`: it checks what callers send (ids, sizes, paths),
opens the atlas read-only (one SQLite connection per thread, so requests read side by
side and never wait behind a writer) and loads the engine, the ontology and the query
embedder once, before the first request. Writes are the exceptions a server is started
for: feedback (HTTP) and ingest (MCP with `--allow-ingest`), through a second, writable
`Atlas` opened on first use and used by one request at a time.
"""
from __future__ import annotations

import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atlas import Atlas
from ..errors import NotFoundError, UsageError
from ..ids import document_id, parse_id
from ..render import shorten
from ..retrieval.query_reduce import check_query_size
from ..settings import Settings, weight_field

if TYPE_CHECKING:
    from ..modes.answer import Answer
    from ..retrieval.result import RetrievalResult

# A JSON string may hold a lone surrogate ("\ud800"), which no UTF-8 reply or database can carry, and NULs,
# which C strings (FTS5 queries, logs) cut short; no text a caller sends may hold either.
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")
GRAPH_DEPTH_MAX = 4
SNIPPET_CHARS = 200


def node_ref(node_id: str) -> str:
    """`collection/key` checked against the id grammar; anything else is a UsageError."""
    try:
        parse_id(node_id)  # the key grammar (ids.KEY): '..', '/', '%2F' and friends never reach the store
    except ValueError:
        raise UsageError(f"not a node id: {node_id[:80]!r} "
                         "(expected collection/key, e.g. paragraphs/4f2a…-00012)") from None
    return node_id


def document_ref(doc_id: str) -> str:
    """A document's key or full id -> its full id (`documents/<key>`)."""
    return node_ref(document_id(doc_id))


def text_problem(text: str) -> str | None:
    """Why `text` is not plain Unicode text (a NUL, a lone surrogate), or None when it is."""
    found = _NOT_TEXT.search(text)
    if found is None:
        return None
    what = "a NUL character" if found.group() == "\x00" else f"a lone surrogate (U+{ord(found.group()):04X})"
    return f"holds {what} at position {found.start()}: not plain Unicode text"


def document_summary(doc: Any) -> dict[str, Any]:
    """The fields a caller needs to choose a document, and the MCP resource that reads it."""
    return {"id": doc.id, "title": doc.title, "published_date": doc.published_date, "status": doc.ingestion_status,
            "source_file": doc.source_file, "uri": f"ohara://document/{doc.key}"}


class AtlasService:
    """Read-mostly access to one atlas for a server process (see the module docstring)."""

    def __init__(self, location: str | Path | None = None, settings: Settings | None = None, *,
                 ingest_roots: Sequence[str | Path] = ()):
        self.settings = settings or Settings.from_env()
        self.atlas = Atlas.open(location, self.settings, read_only=True)
        self.location = self.atlas.location
        self.ingest_roots = tuple(_existing_dir(r) for r in ingest_roots)
        self._writer: Atlas | None = None
        self._write_lock = threading.Lock()

    def close(self) -> None:
        self.atlas.close()
        if self._writer is not None:
            self._writer.close()

    def warm(self) -> float:
        """Load the engine, ontology and query embedder now, not inside the first request; seconds taken."""
        t0 = time.perf_counter()
        self.atlas.query("ohara warm-up", result_limit=1)
        return time.perf_counter() - t0

    # ------------------------------------------------------------------ retrieval
    def overrides(self, limit: int | None = None, weights: dict[str, float] | None = None) -> dict[str, Any]:
        """Per-call settings from what a caller may set: the result limit (capped) and fusion weights."""
        out: dict[str, Any] = {weight_field(name): float(value) for name, value in (weights or {}).items()}
        if limit is not None:
            if not 1 <= limit <= self.settings.api_max_limit:
                raise UsageError(f"limit must be between 1 and {self.settings.api_max_limit}, got {limit}")
            out["result_limit"] = limit
        return out

    def check_text(self, text: str, what: str = "text") -> str:
        if not text.strip():
            raise UsageError(f"{what} is empty")
        if len(text) > self.settings.api_max_text_chars:
            raise UsageError(f"{what} is longer than {self.settings.api_max_text_chars} characters")
        check_query_size(text, self.settings)
        problem = text_problem(text)
        if problem:
            raise UsageError(f"{what} {problem}")
        return text

    def query(self, text: str, *, mode: str = "standard", limit: int | None = None,
              weights: dict[str, float] | None = None,
              session_history: list[dict[str, str]] | None = None) -> RetrievalResult:
        """`Atlas.query` with the caller's limit and weights; the `RetrievalResult` (or mode result)."""
        with self.atlas.snapshot():  # one committed state per request, whatever a writer does meanwhile
            return self.atlas.query(self.check_text(text), mode=mode, session_history=session_history,
                                    **self.overrides(limit, weights))

    def answer(self, question: str, *, mode: str = "standard",
               session_history: list[dict[str, str]] | None = None) -> Answer:
        with self.atlas.snapshot():
            return self.atlas.answer(self.check_text(question, "question"), mode=mode,
                                     session_history=session_history)

    def explain(self, text: str, node_id: str, *, mode: str = "standard", limit: int | None = None,
                weights: dict[str, float] | None = None) -> str:
        """Why `node_id` ranked where it did for this query (the query is run again, deterministically)."""
        node_ref(node_id)
        return self.query(text, mode=mode, limit=limit, weights=weights).explain(node_id)

    # ------------------------------------------------------------------ reading the atlas
    def stats(self) -> dict[str, Any]:
        return self.atlas.stats()

    def documents(self, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
        if offset < 0 or (limit is not None and limit < 1):
            raise UsageError(f"offset must be 0 or more and limit 1 or more, got offset={offset}, limit={limit}")
        docs = self.atlas.documents()
        chosen = docs[offset: offset + limit if limit is not None else None]
        return {"documents": [document_summary(d) for d in chosen], "total": len(docs), "offset": offset,
                "limit": limit}

    def document(self, doc_id: str) -> dict[str, Any]:
        """A document's record and its sections, paragraphs and tables in reading order (one snapshot)."""
        full = document_ref(doc_id)
        view = self.atlas.document(full)
        if view is None:
            raise NotFoundError(f"document {full}")
        return view.to_dict()

    def node(self, node_id: str) -> dict[str, Any]:
        found = self.atlas.nodes([node_ref(node_id)])
        if node_id not in found:
            raise NotFoundError(f"node {node_id}")
        return found[node_id]

    def neighbours(self, node_id: str, depth: int = 2) -> list[dict[str, Any]]:
        """A node's structural neighbourhood (phase 3's traversal): `[{id, type, title, snippet, hops, relation}]`."""
        if not 1 <= depth <= GRAPH_DEPTH_MAX:
            raise UsageError(f"depth must be between 1 and {GRAPH_DEPTH_MAX}, got {depth}")
        with self.atlas.snapshot():
            self.node(node_id)
            hops = [(n.id, n.hops, n.relation) for n in self.atlas.neighbours(node_id, depth)]
            rows = self.atlas.nodes([h[0] for h in hops])
        return [_neighbour(rows[i], i, n, rel) for i, n, rel in hops if i in rows]

    # ------------------------------------------------------------------ the writes a server may be started for
    def feedback(self, query: str, node_id: str, rank: int | None, signal: str) -> dict[str, Any]:
        self.node(node_id)
        with self._write_lock:
            self._writable().feedback(self.check_text(query, "query"), node_id, rank, signal)
        return {"stored": True, "query": query, "node_id": node_id, "rank": rank, "signal": signal}

    def ingest(self, path: str, *, force: bool = False) -> dict[str, Any]:
        """Ingest a file or folder that lies inside one of the ingest roots (after resolving links and '..')."""
        target = self.inside_roots(path)
        with self._write_lock:  # every file is checked again when opened: a swap after this check is refused
            report = self._writable().ingest([target], force=force, progress=False, roots=self.ingest_roots)
        return {"outcomes": [o.to_dict() for o in report.outcomes], "counts": report.counts(), "ok": report.ok}

    def inside_roots(self, path: str) -> Path:
        if not self.ingest_roots:
            raise UsageError("ingest is off: start the server with --allow-ingest --ingest-root DIR")
        _check_path_text(path)
        raw = Path(path).expanduser()
        candidates = [raw] if raw.is_absolute() else [root / raw for root in self.ingest_roots]
        for candidate in candidates:
            try:
                resolved = candidate.resolve()
            except (OSError, RuntimeError) as e:  # a link loop, a name the system refuses
                raise UsageError(f"path {path[:80]!r}: {getattr(e, 'strerror', None) or e}") from None
            if any(resolved.is_relative_to(root) for root in self.ingest_roots):
                if not resolved.exists():
                    raise NotFoundError(f"file or folder {path!r} under the ingest roots")
                return resolved
        roots = ", ".join(str(r) for r in self.ingest_roots)
        raise UsageError(f"refused: {path!r} lies outside the ingest roots ({roots})")

    def _writable(self) -> Atlas:
        if self._writer is None:
            self._writer = Atlas.open(self.location, self.settings)
        return self._writer


def brief(data: Any, chars: int) -> Any:
    """`data` with every `content` string cut to `chars` characters (0 = whole); all other keys pass through."""
    if chars <= 0:
        return data
    if isinstance(data, dict):
        return {k: shorten(v, chars) if k == "content" and isinstance(v, str) else brief(v, chars)
                for k, v in data.items()}
    if isinstance(data, list):
        return [brief(v, chars) for v in data]
    return data


def render_document(data: dict[str, Any]) -> str:
    """A document as Markdown in reading order; each node's id in an HTML comment, so citations can be found."""
    doc = data["document"]
    lines = [f"# {doc['title']}", f"<!-- {doc['id']} -->", ""]
    if doc.get("published_date"):
        lines += [f"Published: {doc['published_date']}", ""]
    nodes = sorted([(n, True) for n in data["sections"]] + [(n, False) for n in data["paragraphs"] + data["tables"]],
                   key=lambda pair: pair[0].get("doc_position", 0))
    for n, is_section in nodes:
        if is_section:
            lines += [f"{'#' * min(6, int(n.get('level') or 1) + 1)} {n.get('title', '')}", f"<!-- {n['id']} -->", ""]
        else:
            lines += [f"<!-- {n['id']} -->", n.get("markdown_representation") or n.get("content", ""), ""]
    return "\n".join(lines)


def section_view(document: dict[str, Any], section_id: str) -> dict[str, Any]:
    """The part of `document()` under one section: the section, its sub-sections and their paragraphs and tables."""
    inside = {section_id}
    for s in document["sections"]:  # reading order: a parent always comes before its children
        if s.get("parent_section_id") in inside:
            inside.add(s["id"])
    return {"document": document["document"],
            "sections": [s for s in document["sections"] if s["id"] in inside],
            "paragraphs": [p for p in document["paragraphs"] if p.get("section_id") in inside],
            "tables": [t for t in document["tables"] if t.get("section_id") in inside]}


def _neighbour(row: dict[str, Any], node_id: str, hops: int, relation: str | None) -> dict[str, Any]:
    text = row.get("content") or row.get("markdown_representation") or ""
    return {"id": node_id, "type": row.get("node_type") or row.get("collection", ""),
            "title": row.get("title") or "", "snippet": shorten(text, SNIPPET_CHARS), "hops": hops,
            "relation": relation}


# Linux's limits (PATH_MAX, NAME_MAX): a longer path fails deep in the system with a generic error.
PATH_MAX_BYTES = 4096
NAME_MAX_BYTES = 255


def _check_path_text(path: str) -> None:
    """One line naming what is wrong with a path a caller sent: a NUL, a lone surrogate, too long."""
    problem = text_problem(path)
    if problem:
        raise UsageError(f"path {path[:80]!r} {problem}")
    size = len(path.encode("utf-8"))
    if size > PATH_MAX_BYTES:
        raise UsageError(f"path {path[:40]!r}... is {size} bytes long, more than the {PATH_MAX_BYTES} a path may be")
    longest = max(Path(path).parts, key=lambda part: len(part.encode("utf-8")), default="")
    if len(longest.encode("utf-8")) > NAME_MAX_BYTES:
        raise UsageError(f"path {path[:40]!r}...: the name {longest[:40]!r}... is {len(longest.encode('utf-8'))} "
                         f"bytes long, more than the {NAME_MAX_BYTES} a file name may be")


def _existing_dir(path: str | Path) -> Path:
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_dir():
        raise UsageError(f"--ingest-root {path}: not a folder")
    return resolved
