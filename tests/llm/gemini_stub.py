"""A local stand-in for the Gemini REST API, for tests that drive the real google-genai client.

It is a real HTTP server (stdlib ``http.server`` on 127.0.0.1, a free port, one thread
per connection) answering the paths the SDK calls on the Gemini Developer API:

* ``POST /{version}/models/{model}:generateContent``
  request  ``{"contents": [{"role": "user", "parts": [{"text": ...}]}],
             "generationConfig": {"temperature", "responseMimeType", "responseJsonSchema", ...},
             "serviceTier": "flex"  (absent = standard)}``
  reply    ``{"candidates": [{"content": {"role": "model", "parts": [{"text": ...}]},
             "finishReason": "STOP", "index": 0}],
             "usageMetadata": {"promptTokenCount", "candidatesTokenCount", "totalTokenCount",
             "cachedContentTokenCount"?, "thoughtsTokenCount"?}, "modelVersion", "responseId"}``
* ``POST /{version}/models/{model}:batchEmbedContents``
  request  ``{"requests": [{"model": "models/x", "content": {"parts": [{"text"}]},
             "taskType": "RETRIEVAL_DOCUMENT", "outputDimensionality": 768}, ...]}``
  reply    ``{"embeddings": [{"values": [...]}, ...]}``
* ``POST /{version}/models/{model}:embedContent`` (single): reply ``{"embedding": {"values": [...]}}``
* errors   ``{"error": {"code": 429, "message": ..., "status": "RESOURCE_EXHAUSTED", "details": [...]}}``

Scripting: ``stub.queue(reply, ...)`` queues replies for generateContent (FIFO), or for
embeddings with ``kind="embed"``; ``stub.respond_with(fn)`` installs a callable
``fn(request) -> StubReply | dict | str | None`` used when the queue is empty (a dict
becomes a JSON reply, a str a text reply, None falls through). Embeddings default to
deterministic pseudo-random vectors of the requested size (`stub_vector`). A
generateContent request with nothing queued and no responder gets HTTP 400
"gemini stub: nothing scripted" and is listed in ``stub.unexpected``.

Every request is recorded (``stub.requests``, ``stub.received(kind)``) with its body,
headers, prompt text and service tier, so tests assert on what the client really sent.

Only the standard library is used here, so other test packages can import it freely.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

_PATH = re.compile(r"^/(?P<version>[^/]+)/models/(?P<model>[^:/]+):(?P<action>[A-Za-z]+)$")
GENERATE = "generate"
EMBED = "embed"
_KIND = {"generateContent": GENERATE, "batchEmbedContents": EMBED, "embedContent": EMBED}

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


# --------------------------------------------------------------------------- requests and replies


@dataclass
class StubRequest:
    """One request as the server received it."""

    path: str
    version: str
    model: str
    action: str  # generateContent | batchEmbedContents | embedContent
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def kind(self) -> str:
        return _KIND.get(self.action, self.action)

    @property
    def prompt_text(self) -> str:
        """All text parts of all contents (generateContent), or all embedded texts."""
        texts = []
        for content in self.body.get("contents") or []:
            texts += [p.get("text", "") for p in content.get("parts") or []]
        return "\n".join(texts) if texts else "\n".join(self.embed_texts)

    @property
    def service_tier(self) -> str | None:
        """`serviceTier` as sent (None = field absent = standard tier)."""
        return self.body.get("serviceTier")

    @property
    def generation_config(self) -> dict[str, Any]:
        return self.body.get("generationConfig") or {}

    @property
    def api_key(self) -> str | None:
        return self.headers.get("x-goog-api-key")

    @property
    def embed_requests(self) -> list[dict[str, Any]]:
        if self.action == "batchEmbedContents":
            return list(self.body.get("requests") or [])
        if self.action == "embedContent":
            return [self.body]
        return []

    @property
    def embed_texts(self) -> list[str]:
        return [
            "".join(p.get("text", "") for p in (r.get("content") or {}).get("parts") or [])
            for r in self.embed_requests
        ]


@dataclass
class StubReply:
    """What the server sends back: a status, a JSON body (or raw bytes), after a delay."""

    status: int = 200
    body: Any = None
    raw: bytes | None = None
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)

    def payload(self) -> bytes:
        if self.raw is not None:
            return self.raw
        return json.dumps(self.body if self.body is not None else {}).encode("utf-8")


def text_reply(
    text: str,
    *,
    prompt_tokens: int | None = None,
    output_tokens: int | None = None,
    cached_tokens: int = 0,
    thoughts_tokens: int = 0,
    finish_reason: str = "STOP",
    model: str = "gemini-2.5-flash-lite",
    request: StubRequest | None = None,
) -> StubReply:
    """A generateContent reply whose candidate text is `text`, with usageMetadata.

    Token counts default to len/4 of the request prompt and of `text`, like a tokenizer would roughly.
    """
    prompt = prompt_tokens if prompt_tokens is not None else max(1, len(request.prompt_text) // 4 if request else 10)
    output = output_tokens if output_tokens is not None else max(1, len(text) // 4)
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output + thoughts_tokens,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
    }
    if cached_tokens:  # the real API omits zero counts
        usage["cachedContentTokenCount"] = cached_tokens
    if thoughts_tokens:
        usage["thoughtsTokenCount"] = thoughts_tokens
    body = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish_reason, "index": 0}
        ],
        "usageMetadata": usage,
        "modelVersion": model,
        "responseId": hashlib.sha1(text.encode("utf-8")).hexdigest()[:16],
    }
    return StubReply(200, body)


def json_reply(data: Any, **usage: Any) -> StubReply:
    """A generateContent reply whose text is `data` as JSON (see `text_reply` for usage)."""
    return text_reply(json.dumps(data), **usage)


def error_reply(status: int, message: str | None = None, *, retry_delay: str | None = None, delay_s: float = 0.0) -> StubReply:
    """A Google-style error body; `retry_delay` (e.g. "2s") adds a google.rpc.RetryInfo."""
    details = []
    if retry_delay is not None:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay})
    body = {
        "error": {
            "code": status,
            "message": message or f"stub error {status}",
            "status": _STATUS_NAMES.get(status, "UNKNOWN"),
            "details": details,
        }
    }
    return StubReply(status, body, delay_s=delay_s)


def slow(reply: StubReply, delay_s: float) -> StubReply:
    """`reply`, sent only after `delay_s` seconds (to trip client timeouts)."""
    return StubReply(reply.status, reply.body, reply.raw, delay_s, dict(reply.headers))


def stub_vector(text: str, dim: int) -> list[float]:
    """The deterministic, deliberately non-normalised vector the stub returns for `text`."""
    rng = random.Random(int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], 16))
    return [rng.uniform(-1.0, 1.0) * 3.0 for _ in range(dim)]


def embed_reply(vectors: list[list[float]]) -> StubReply:
    """A batchEmbedContents reply carrying `vectors`."""
    return StubReply(200, {"embeddings": [{"values": list(v)} for v in vectors]})


def _default_embeddings(request: StubRequest) -> StubReply:
    vectors = [stub_vector(t, int(r.get("outputDimensionality") or 768)) for r, t in zip(request.embed_requests, request.embed_texts)]
    if request.action == "embedContent":
        return StubReply(200, {"embedding": {"values": vectors[0]}})
    return embed_reply(vectors)


# --------------------------------------------------------------------------- the server

Responder = Callable[[StubRequest], "StubReply | dict | str | None"]


class GeminiStub:
    """The scripted server. Use as a context manager or call start()/stop()."""

    def __init__(self, host: str = "127.0.0.1"):
        self.host = host
        self._lock = threading.Lock()
        self._queues: dict[str, deque[StubReply]] = {GENERATE: deque(), EMBED: deque()}
        self._responders: dict[str, Responder | None] = {GENERATE: None, EMBED: None}
        self._requests: list[StubRequest] = []
        self.unexpected: list[StubRequest] = []
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------
    def start(self) -> "GeminiStub":
        # Its clients are the real google-genai SDK: without the extra (CI's core-only pass) the test skips.
        import pytest  # noqa: PLC0415 - the stub itself is stdlib-only

        pytest.importorskip("google.genai", reason="drives the real google-genai client: needs the gemini extra")
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                stub._handle(self)

            def do_GET(self) -> None:  # noqa: N802
                stub._send(self, error_reply(404, f"gemini stub: GET {self.path} is not served"))

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        self._server = ThreadingHTTPServer((self.host, 0), Handler)
        self._server.daemon_threads = True
        # A short poll interval keeps stop() (which waits for the next poll) fast.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="gemini-stub", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping on a delayed reply
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> "GeminiStub":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("gemini stub is not running")
        return f"http://{self.host}:{self._server.server_address[1]}"

    # -- scripting -------------------------------------------------------------------
    def queue(self, *replies: StubReply | dict, kind: str = GENERATE) -> None:
        """Queue replies (FIFO) for generateContent, or for embeddings with kind="embed".

        A dict is shorthand for `json_reply(dict)`.
        """
        with self._lock:
            for reply in replies:
                self._queues[kind].append(json_reply(reply) if isinstance(reply, dict) else reply)

    def respond_with(self, fn: Responder | None, kind: str = GENERATE) -> None:
        """Compute replies from requests once the queue is empty (None removes the responder)."""
        with self._lock:
            self._responders[kind] = fn

    def reset(self) -> None:
        """Forget queued replies, responders and recorded requests."""
        with self._lock:
            for q in self._queues.values():
                q.clear()
            self._responders = {GENERATE: None, EMBED: None}
            self._requests.clear()
            self.unexpected.clear()

    @property
    def pending(self) -> int:
        """Queued replies not yet served (all kinds)."""
        with self._lock:
            return sum(len(q) for q in self._queues.values())

    @property
    def requests(self) -> list[StubRequest]:
        with self._lock:
            return list(self._requests)

    def received(self, kind: str | None = None) -> list[StubRequest]:
        """Recorded requests, optionally only "generate" or "embed" ones."""
        return [r for r in self.requests if kind is None or r.kind == kind]

    def settings(self, **overrides: Any):
        """ohara-lab Settings pointing the real google-genai client at this server."""
        from ohara_lab.settings import Settings

        values: dict[str, Any] = {
            "llm": "gemini",
            "gemini_api_key": "stub-key",
            "gemini_base_url": self.base_url,
            # The stub answers at once unless a test scripts a slow reply (and then sets its own timeout):
            # a short default let a loaded machine time out plain replies, re-sending them on the standard
            # tier, and the tests that count requests and tiers failed on correct code.
            "gemini_timeout_s": 120.0,
            "gemini_max_retries": 3,
        }
        values.update(overrides)
        return Settings(**values)

    # -- serving ---------------------------------------------------------------------
    def _next_reply(self, request: StubRequest) -> StubReply:
        kind = request.kind
        with self._lock:
            queue = self._queues.get(kind)
            if queue:
                return queue.popleft()
            responder = self._responders.get(kind)
        if responder is not None:
            produced = responder(request)
            if isinstance(produced, StubReply):
                return produced
            if isinstance(produced, dict):
                return json_reply(produced)
            if isinstance(produced, str):
                return text_reply(produced, request=request)
        if kind == EMBED:
            return _default_embeddings(request)
        with self._lock:
            self.unexpected.append(request)
        return error_reply(400, f"gemini stub: nothing scripted for {request.action} on {request.model}")

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        path = handler.path.split("?", 1)[0]
        match = _PATH.match(path)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(handler, error_reply(400, "gemini stub: request body is not JSON"))
            return
        if not match or match["action"] not in _KIND:
            self._send(handler, error_reply(404, f"gemini stub: no route for POST {path}"))
            return
        request = StubRequest(
            path=path,
            version=match["version"],
            model=match["model"],
            action=match["action"],
            headers={k.lower(): v for k, v in handler.headers.items()},
            body=body,
        )
        with self._lock:
            self._requests.append(request)
        self._send(handler, self._next_reply(request))

    def _send(self, handler: BaseHTTPRequestHandler, reply: StubReply) -> None:
        if reply.delay_s and self._stopping.wait(reply.delay_s):
            return
        data = reply.payload()
        try:
            handler.send_response(reply.status)
            handler.send_header("Content-Type", "application/json; charset=UTF-8")
            handler.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test); nothing to deliver
