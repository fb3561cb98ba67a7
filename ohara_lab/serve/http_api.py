"""`ohara serve`: a read-only HTTP API over one atlas (FastAPI + uvicorn), safe by default.

    POST /query                              RetrievalResult.to_dict()
    POST /answer                             Answer.to_dict()
    GET  /documents?offset&limit             {documents, total, offset, limit}
    GET  /documents/{key}                    {document, sections, paragraphs, tables}
    GET  /nodes/{collection}/{key}/neighbours?depth
    GET  /stats
    POST /feedback                           the one write

What the original's API (spec §8.4, §9.3) got wrong, and what this one does instead:
loopback by default and a bearer token (`OHARA_API_TOKEN`) required on any other
address (the server refuses to start without one); no CORS headers, JSON bodies only
(a page in a browser cannot post a form here), Host checked against loopback names
(no DNS rebinding); bodies capped (`OHARA_API_MAX_BODY_KB`, 413) and parameters
validated (422); ids checked against the id grammar before any lookup; no raw-query
endpoint, no upload, no file access of any kind.
"""
from __future__ import annotations

import hmac
import ipaddress
import logging
from typing import Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..errors import NotFoundError, OharaError, SettingsError, StoreError, UsageError
from ..ids import COLLECTIONS
from .params import Depth, History, Limit, Mode, NodeId, QueryText, Question, Rank, Signal, Weights, history
from .service import AtlasService

log = logging.getLogger(__name__)
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]
KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$"


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryRequest(_Body):
    text: QueryText
    mode: Mode = "standard"
    limit: Limit | None = None
    weights: Weights | None = None
    session_history: History | None = None


class AnswerRequest(_Body):
    question: Question
    mode: Mode = "standard"
    session_history: History | None = None


class FeedbackRequest(_Body):
    query: QueryText
    node_id: NodeId
    signal: Signal
    rank: Rank | None = None


def build_app(service: AtlasService, *, token: str | None, loopback: bool, max_body_bytes: int) -> FastAPI:
    """The API over `service`. `token`: required as `Authorization: Bearer …` on every route when set."""
    app = FastAPI(title="ohara-lab", version=__version__, dependencies=[Depends(_bearer(token))],
                  description="Read-only access to one ohara-lab atlas (feedback is the one write).")
    _routes(app, service)
    _errors(app)
    if loopback:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_NAMES)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    return app


def _bearer(token: str | None) -> Any:
    scheme = HTTPBearer(auto_error=False, description="OHARA_API_TOKEN")

    def check(credentials: HTTPAuthorizationCredentials | None = Depends(scheme)) -> None:
        if token is None:
            return
        given = credentials.credentials if credentials else ""
        if not hmac.compare_digest(given.encode(), token.encode()):
            raise HTTPException(401, "a valid bearer token is required (Authorization: Bearer $OHARA_API_TOKEN)",
                                headers={"WWW-Authenticate": "Bearer"})

    return check


def _routes(app: FastAPI, service: AtlasService) -> None:
    @app.post("/query", summary="Retrieve with every phase; the body is RetrievalResult.to_dict()")
    def query(req: QueryRequest) -> dict[str, Any]:
        return service.query(req.text, mode=req.mode, limit=req.limit, weights=req.weights,
                             session_history=history(req.session_history)).to_dict()

    @app.post("/answer", summary="A cited answer from the Principal tier, or 'insufficient evidence'")
    def answer(req: AnswerRequest) -> dict[str, Any]:
        return service.answer(req.question, mode=req.mode, session_history=history(req.session_history)).to_dict()

    @app.get("/documents", summary="The atlas's documents")
    def documents(offset: int = Query(0, ge=0), limit: Limit | None = None) -> dict[str, Any]:
        return service.documents(offset, limit)

    @app.get("/documents/{key}", summary="A document with its sections, paragraphs and tables in reading order")
    def document(key: str = Path(pattern=KEY_PATTERN)) -> dict[str, Any]:
        return service.document(key)

    @app.get("/nodes/{collection}/{key}/neighbours", summary="A node's structural neighbourhood")
    def neighbours(collection: Literal[COLLECTIONS] = Path(),
                   key: str = Path(pattern=KEY_PATTERN), depth: Depth = 2) -> list[dict[str, Any]]:
        return service.neighbours(f"{collection}/{key}", depth)

    @app.get("/stats", summary="Counts of documents, nodes, entities and edges by relation")
    def stats() -> dict[str, Any]:
        return service.stats()

    @app.post("/feedback", status_code=201, summary="Store a thumbs up/down on a result")
    def feedback(req: FeedbackRequest) -> dict[str, Any]:
        return service.feedback(req.query, req.node_id, req.rank, req.signal)


def _errors(app: FastAPI) -> None:
    status = {NotFoundError: 404, UsageError: 422, SettingsError: 422, StoreError: 503}

    @app.exception_handler(OharaError)
    def named_error(_request: Request, exc: OharaError) -> JSONResponse:
        code = next((c for kind, c in status.items() if isinstance(exc, kind)), 500)
        return JSONResponse({"detail": str(exc)}, status_code=code)


class BodyLimit:
    """Refuse request bodies over `max_bytes` with 413, whether announced (Content-Length) or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._too_large(scope, receive, send)
            return
        body, more = b"", True
        while more:  # small by construction: the whole body is read (at most max_bytes) before the app runs
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
        await self.app(scope, _replay(body, receive), send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse({"detail": f"request body larger than {self.max_bytes} bytes"}, status_code=413)
        await response(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect, as the server would

    return replay


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token (checked before the atlas is even opened)."""
    if not is_loopback(host) and not token:
        raise UsageError(f"refusing to serve on {host}: set OHARA_API_TOKEN (a bearer token) to listen beyond "
                         "this machine, or keep the default --host 127.0.0.1")


def serve_http(service: AtlasService, host: str, port: int) -> None:
    """Run the API on `host:port` until interrupted; refuses a non-loopback address without a token."""
    import uvicorn  # noqa: PLC0415

    check_bind(host, service.settings.api_token)
    app = build_app(service, token=service.settings.api_token, loopback=is_loopback(host),
                    max_body_bytes=service.settings.api_max_body_kb * 1024)
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False, timeout_graceful_shutdown=5)
