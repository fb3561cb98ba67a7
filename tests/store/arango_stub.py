"""A recorder of ArangoDB's HTTP wire protocol, for tests. It is NOT an ArangoDB emulator.

`WireRecorder` runs a stdlib HTTP server on 127.0.0.1 that answers the REST
calls python-arango makes when `ArangoStore` opens an atlas, writes a document
and searches (database properties, collection / index / view creation, stream
transaction begin / commit / abort, AQL cursors) with the smallest well-formed
reply of the real API, and records every request. It keeps no database state
and never evaluates AQL: every cursor comes back empty unless a test has registered a
canned reply for queries containing some text. What it can tell a test is what
the *client sent*: query texts, bind variables, transaction headers, and which
transaction calls happened, in order. Anything else is answered 404 and kept
in `unexpected`, so a test notices when the client wanders off the known paths.
"""
from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str  # without the /_db/<name> prefix
    database: str | None
    params: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: Any

    @property
    def trx(self) -> str | None:
        return self.headers.get("x-arango-trx-id")


@dataclass
class WireRecorder:
    requests: list[Request] = field(default_factory=list)
    unexpected: list[Request] = field(default_factory=list)
    canned: list[tuple[str, list[Any]]] = field(default_factory=list)
    role: str = "SINGLE"

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._trx = 0
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _serve(self) -> None:
                status, reply = recorder._answer(self)
                raw = json.dumps(reply).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    # ------------------------------------------------------------------ test side
    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def reply_when(self, text: str, rows: list[Any]) -> None:
        """Answer cursor requests whose query contains `text` with `rows` (first registration wins)."""
        self.canned.append((text, rows))

    def cursors(self) -> list[Request]:
        return [r for r in self.requests if r.method == "POST" and r.path == "/_api/cursor"]

    def transaction_calls(self) -> list[tuple[str, str]]:
        """('begin' | 'commit' | 'abort', transaction id) in the order the client made them."""
        out = []
        for r in self.requests:
            if r.path == "/_api/transaction/begin" and r.method == "POST":
                out.append(("begin", r.headers.get("x-stub-trx", "")))
            elif r.path.startswith("/_api/transaction/") and r.method in ("PUT", "DELETE"):
                out.append(("commit" if r.method == "PUT" else "abort", r.path.rsplit("/", 1)[1]))
        return out

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()
            self.unexpected.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------------ server side
    def _answer(self, h: BaseHTTPRequestHandler) -> tuple[int, Any]:
        url = urlsplit(h.path)
        match = re.match(r"^/_db/([^/]+)(/.*)$", url.path)
        database, path = (match.group(1), match.group(2)) if match else (None, url.path)
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        req = Request(h.command, path, database, parse_qs(url.query),
                      {k.lower(): v for k, v in h.headers.items()}, body)
        with self._lock:
            self.requests.append(req)
            status, reply = self._route(req)
            if status == 404:
                self.unexpected.append(req)
        return status, reply

    def _route(self, r: Request) -> tuple[int, Any]:
        ok = {"error": False, "code": 200}
        if r.method == "GET" and r.path == "/_api/database/current":
            return 200, {**ok, "result": {"id": "1", "name": r.database, "isSystem": False, "path": "none"}}
        if r.method == "GET" and r.path == "/_admin/server/role":
            return 200, {**ok, "role": self.role, "mode": "default"}
        if r.method == "GET" and r.path == "/_api/collection":
            return 200, {**ok, "result": []}
        if r.method == "POST" and r.path == "/_api/collection":
            return 200, {**ok, "id": str(len(self.requests)), "name": r.body["name"], "type": r.body["type"],
                         "status": 3, "isSystem": False, "waitForSync": False}
        if r.method == "POST" and r.path == "/_api/index":
            coll = r.params.get("collection", ["?"])[0]
            return 201, {**r.body, "id": f"{coll}/{len(self.requests)}", "isNewlyCreated": True,
                         "error": False, "code": 201}
        if r.method == "GET" and r.path == "/_api/view":
            return 200, {**ok, "result": []}
        if r.method == "POST" and r.path == "/_api/view":
            return 201, {**r.body, "id": str(len(self.requests)), "globallyUniqueId": "v1"}
        if r.method == "POST" and r.path == "/_api/transaction/begin":
            self._trx += 1
            trx = f"trx{self._trx}"
            r.headers["x-stub-trx"] = trx  # lets transaction_calls() pair begin with its id
            return 201, {**ok, "code": 201, "result": {"id": trx, "status": "running"}}
        m = re.match(r"^/_api/transaction/([^/]+)$", r.path)
        if m and r.method in ("PUT", "DELETE"):
            status = "committed" if r.method == "PUT" else "aborted"
            return 200, {**ok, "result": {"id": m.group(1), "status": status}}
        if r.method == "POST" and r.path == "/_api/cursor":
            result = next((rows for text, rows in self.canned if text in r.body["query"]), [])
            return 201, {"error": False, "code": 201, "result": result, "hasMore": False, "cached": False,
                         "extra": {"warnings": [], "stats": {"writesExecuted": 0, "writesIgnored": 0}}}
        return 404, {"error": True, "code": 404, "errorNum": 404,
                     "errorMessage": f"the wire recorder does not answer {r.method} {r.path}"}
