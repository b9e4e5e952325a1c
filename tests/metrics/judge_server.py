"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions protocol, with faults.

The requested ``model`` picks the behaviour: ``good``/``low`` (a reasoned answer with
a rating), ``flaky`` (HTTP 500 the first time a conversation is seen), ``busy`` (429
with Retry-After, then fine), ``slow`` (sleeps past the client timeout), ``garbage``
(HTML with status 200), ``refuse`` (HTTP 400), ``noscore`` (an answer without a
rating), ``tecci``/``invalid`` (TECCI JSON: IF cycles 3,4,5,4,4 per item, IC is a
function of the item, VQ = 2), ``picky`` (HTTP 500 for a conversation that mentions
"poison", else as ``tecci``), ``count`` (tracks concurrency).  A behaviour named in
``down`` answers HTTP 503 until it is taken out (a server that is down, then back).
Model names may carry a score: ``good:9`` answers ``[[9]]``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class JudgeServer:
    """Start with ``with JudgeServer() as srv: srv.url``."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.seen: set[str] = set()
        self.calls: dict[str, int] = {}
        self.down: set[str] = set()  # behaviours answering 503 for now
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self.stop_sleeping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                server.handle(self, body)

            def _send(self, code: int, data: Any, raw: bytes | None = None,
                      headers: dict[str, str] | None = None) -> None:
                payload = raw if raw is not None else json.dumps(data).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> JudgeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_sleeping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- behaviours ---------------------------------------------------------------------
    @staticmethod
    def answer(text: str) -> dict[str, Any]:
        return {"id": "x", "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": text}}]}

    def handle(self, h: Any, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        kind, _, arg = model.partition(":")
        with self.lock:
            self.calls[kind] = self.calls.get(kind, 0) + 1
        blob = json.dumps([model, body["messages"]], sort_keys=True).encode()
        key = hashlib.sha256(blob).hexdigest()
        if kind in self.down:
            return h._send(503, {"error": {"message": "service unavailable"}})
        if kind in ("good", "low"):
            score = arg or ("8" if kind == "good" else "3")
            return h._send(200, self.answer(f"The output follows the prompt. Rating: [[{score}]]"))
        if kind == "flaky":
            with self.lock:
                first = key not in self.seen
                self.seen.add(key)
            if first:
                return h._send(500, {"error": {"message": "internal error"}})
            return h._send(200, self.answer("Fine after all. Rating: [[6]]"))
        if kind == "busy":
            with self.lock:
                first = key not in self.seen
                self.seen.add(key)
            if first:
                return h._send(429, {"error": {"message": "slow down"}},
                               headers={"Retry-After": "0.05"})
            return h._send(200, self.answer("Rating: [[5]]"))
        if kind == "slow":
            self.stop_sleeping.wait(3.0)
            return h._send(200, self.answer("Rating: [[9]]"))
        if kind == "garbage":
            return h._send(200, None, raw=b"<html><body>Bad gateway</body></html>")
        if kind == "refuse":
            return h._send(400, {"error": {"message": "image rejected by content policy"}})
        if kind == "noscore":
            return h._send(200, self.answer("I am unable to rate this image."))
        if kind == "picky" and "poison" in json.dumps(body["messages"]):
            return h._send(500, {"error": {"message": "cannot process this image"}})
        if kind in ("tecci", "invalid", "picky"):
            # IF cycles over an item's repeated runs (mean 4); IC depends on the item only
            with self.lock:
                k = self.calls[key] = self.calls.get(key, 0) + 1
            v = [3, 4, 5, 4, 4][(k - 1) % 5]
            ic = 1 + int(key, 16) % 5
            data = {"instruction_valid": kind != "invalid", "IF": v, "IC": ic, "VQ": 2}
            return h._send(200, self.answer(f"Step 1: looks fine.\n{json.dumps(data)}"))
        if kind == "count":
            with self.lock:
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            time.sleep(0.05)
            with self.lock:
                self.in_flight -= 1
            return h._send(200, self.answer("Rating: [[4]]"))
        return h._send(404, {"error": {"message": f"model {model} not found"}})
