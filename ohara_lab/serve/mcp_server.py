"""`ohara mcp`: the atlas as an MCP server for agents (official `mcp` SDK, `MCPServer`).

Tools: `query`, `answer`, `get_graph_context`, `explain`, `stats`, `list_documents`, and
`ingest` only when the server was started with `--allow-ingest` (then only from the
folders named with `--ingest-root`). Resources `ohara://document/{key}` and
`ohara://section/{key}` give the text a result cites, in reading order, every node
marked with its id. Every tool is a call on `AtlasService`; errors ohara-lab names come
back to the agent as one-line tool errors.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import ToolAnnotations

from .. import __version__
from ..errors import NotFoundError, OharaError
from ..ids import section_id
from .params import Depth, History, Limit, Mode, NodeId, Offset, QueryText, Question, SnippetChars, Weights, history
from .service import AtlasService, brief, render_document, section_view

INSTRUCTIONS = (
    "An ohara-lab atlas: documents turned into a graph of structure, SUMO ontology tags, named entities and time. "
    "Use `query` to retrieve evidence: results come in tiers with provenance; the Principal tier holds only nodes "
    "corroborated by at least two independent signals, and an empty Principal tier (abstained: true) means the "
    "atlas lacks the evidence; say so rather than guess. `answer` writes a cited answer or says the evidence is "
    "insufficient. Read a cited document with the resource ohara://document/{key} (the key is the part of "
    "'documents/<key>' after the slash) or a section with ohara://section/{key}.")

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
F = TypeVar("F", bound=Callable[..., Any])


def _raising(convert: Callable[[OharaError], Exception]) -> Callable[[F], F]:
    """A decorator re-raising the OharaErrors of a tool or resource as the SDK's error, one line the agent reads."""
    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except OharaError as e:
                raise convert(e) from None

        return wrapper  # type: ignore[return-value]

    return decorate


_tool_errors = _raising(lambda e: ToolError(str(e)))  # bad id, unknown setting, locked atlas, ...
_resource_errors = _raising(
    lambda e: (ResourceNotFoundError if isinstance(e, NotFoundError) else ResourceError)(str(e))
)


def build_server(service: AtlasService, *, allow_ingest: bool = False) -> MCPServer:
    """The MCP server over `service`; `ingest` is registered only when `allow_ingest`."""
    server = MCPServer("ohara-lab", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(annotations=READ)
    @_tool_errors
    def query(text: QueryText, mode: Mode = "standard", limit: Limit = 10, weights: Weights | None = None,
              snippet_chars: SnippetChars = 300, session_history: History | None = None) -> dict[str, Any]:
        """Retrieve evidence from the atlas for `text`.

        Returns `results` (ranked nodes: id, document_id, document_title, section_path, content, score, and
        `contributions`: which retrieval phases found each node and how much each added) and `tiers`:
        `principal` (corroborated by >=2 independent signal families), `integrity` (principal plus structural
        and cross-document support, with provenance and contradiction flags) and `explorer` (documents one
        similarity hop further, with the edge's verb and summary). `abstained: true` means nothing is
        corroborated. An `answerability` block, when present, scores whether the atlas can answer at all.
        """
        result = service.query(text, mode=mode, limit=limit, weights=weights, session_history=history(session_history))
        return brief(result.to_dict(), snippet_chars)

    @server.tool(annotations=READ)
    @_tool_errors
    def answer(question: Question, mode: Mode = "standard", session_history: History | None = None) -> dict[str, Any]:
        """Answer `question` from the Principal tier with [n] citations, or say the evidence is insufficient.

        Returns `answer` (text with [n] markers), `citations` (ref, node_id, document_id, title, section, score,
        snippet), `insufficient` (true when no answer is given, with the reason in `answer`) and `answered_by`.
        """
        ans = service.answer(question, mode=mode, session_history=history(session_history))
        out = {k: v for k, v in ans.to_dict().items() if k != "retrieval"}
        retrieval = ans.retrieval.to_dict() if ans.retrieval is not None else {}
        out.update({k: retrieval[k] for k in ("abstained", "answerability") if k in retrieval})
        return out

    @server.tool(annotations=READ)
    @_tool_errors
    def get_graph_context(node_id: NodeId, depth: Depth = 2) -> list[dict[str, Any]]:
        """The structural neighbourhood of a node: parent sections, children, siblings, adjacent tables.

        Returns `[{id, type, title, snippet, hops, relation}]`, nearest first. For a document, its top sections.
        """
        return service.neighbours(node_id, depth)

    @server.tool(annotations=READ)
    @_tool_errors
    def explain(text: QueryText, node_id: NodeId, mode: Mode = "standard", limit: Limit = 10,
                weights: Weights | None = None) -> str:
        """Why `node_id` ranked where it did for the query `text`: each phase's raw and normalised score,
        weight and the edges followed, its signal families, and why it is or is not in the Principal tier."""
        return service.explain(text, node_id, mode=mode, limit=limit, weights=weights)

    @server.tool(annotations=READ)
    @_tool_errors
    def stats() -> dict[str, Any]:
        """Counts of documents, sections, paragraphs, tables, entities and edges by relation."""
        return service.stats()

    @server.tool(annotations=READ)
    @_tool_errors
    def list_documents(offset: Offset = 0, limit: Limit | None = None) -> dict[str, Any]:
        """The atlas's documents (id, title, published_date, status, source_file, uri of the readable resource)."""
        return service.documents(offset, limit)

    @server.resource("ohara://document/{key}", mime_type="text/markdown",
                     description="A whole document in reading order; each node's id in an HTML comment")
    @_resource_errors
    def document(key: str) -> str:
        return render_document(service.document(key))

    @server.resource("ohara://section/{key}", mime_type="text/markdown",
                     description="One section with its sub-sections, paragraphs and tables")
    @_resource_errors
    def section(key: str) -> str:
        node = service.node(section_id(key))
        return render_document(section_view(service.document(node["document_id"]), node["id"]))

    if allow_ingest:
        _add_ingest(server, service)
    return server


def _add_ingest(server: MCPServer, service: AtlasService) -> None:
    roots = ", ".join(str(r) for r in service.ingest_roots)

    @_tool_errors
    def ingest(path: str, force: bool = False) -> dict[str, Any]:
        return service.ingest(path, force=force)

    server.add_tool(ingest, annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                                        idempotent_hint=True, open_world_hint=False),
                    description=f"Ingest a file or folder (recursively) into the atlas. Only paths inside {roots} "
                                "are accepted (relative paths are taken from there); unchanged files are skipped. "
                                "Returns one outcome per file: ingested, skipped, replaced or failed with the reason.")


def run_mcp(service: AtlasService, *, allow_ingest: bool = False, http_port: int | None = None) -> None:
    """Serve over stdio, or over streamable HTTP on 127.0.0.1 (the SDK then also checks Host and Origin)."""
    server = build_server(service, allow_ingest=allow_ingest)
    if http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=http_port)
