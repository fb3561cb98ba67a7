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
validated (422 naming the field: NaN, infinities and numbers outside a setting's range,
text with NUL or lone surrogates); ids checked against the id grammar before any lookup;
no raw-query endpoint, no upload, no file access of any kind. With a token, the OpenAPI
schema needs it too and the `/docs` and `/redoc` pages are off. Slow clients are cut off
(`limits.py`: header and body deadlines, a cap on held connections).
"""
from __future__ import annotations

import hmac
import ipaddress
import logging
from typing import Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .. import __version__
from ..errors import NotFoundError, OharaError, SettingsError, StoreError, UsageError
from ..ids import COLLECTIONS
from .limits import RequestLimits, uvicorn_options
from .params import Depth, History, Limit, Mode, NodeId, Offset, QueryText, Question, Rank, Signal, Weights, history
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


def build_app(service: AtlasService, *, loopback: bool) -> FastAPI:
    """The API over `service`, its token and body limits from `service.settings`.

    With `OHARA_API_TOKEN` set, every route needs `Authorization: Bearer …`, the OpenAPI schema
    (`/openapi.json`) included, and the browser pages `/docs` and `/redoc` are off: a page
    loaded in a browser cannot send the header, so they could only show the schema to anyone.
    """
    settings = service.settings
    token = settings.api_token
    app = FastAPI(title="ohara-lab", version=__version__, dependencies=[Depends(_bearer(token))],
                  description="Read-only access to one ohara-lab atlas (feedback is the one write).",
                  docs_url=None if token else "/docs", redoc_url=None if token else "/redoc",
                  openapi_url=None if token else "/openapi.json")
    _routes(app, service)
    if token:
        app.get("/openapi.json", include_in_schema=False)(app.openapi)  # under the app's bearer dependency
    _errors(app)
    if loopback:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_NAMES)
    app.add_middleware(RequestLimits, max_head_bytes=settings.api_max_header_kb * 1024,
                       max_bytes=settings.api_max_body_kb * 1024, timeout_s=settings.api_body_timeout_s)
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
    def documents(offset: Offset = 0, limit: Limit | None = None) -> dict[str, Any]:
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

    @app.exception_handler(RequestValidationError)
    def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's own handler echoes each bad input, and a NaN or a lone surrogate cannot be written
        # as JSON: the 422 became a 500. Where (loc) and why (msg) are enough to fix a request.
        return JSONResponse({"detail": [_problem(e) for e in exc.errors()]}, status_code=422)


def _problem(error: dict[str, Any]) -> dict[str, Any]:
    return {"loc": list(error.get("loc", ())), "msg": str(error.get("msg", "")), "type": str(error.get("type", ""))}


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token (checked before the atlas is even opened)."""
    if not is_loopback(host) and not token:
        raise UsageError(f"refusing to serve on {host}: set OHARA_API_TOKEN (a bearer token) to listen beyond "
                         "this machine, or keep the default --host 127.0.0.1")


def serve_http(service: AtlasService, host: str, port: int) -> None:
    """Run the API on `host:port` until interrupted; refuses a non-loopback address without a token.

    What a client may hold is bounded by the `OHARA_API_*` limits (`limits.py`)."""
    import uvicorn  # noqa: PLC0415

    check_bind(host, service.settings.api_token)
    app = build_app(service, loopback=is_loopback(host))
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False, timeout_graceful_shutdown=5,
                **uvicorn_options(service.settings))
