"""A real HTTP/1.1 server on 127.0.0.1 speaking OpenAI chat completions, for proposals.

Written on asyncio streams (keep-alive, hundreds of requests a second on one thread)
after the pattern of ``tests/metrics/judge_server.py``.  It answers each proposal kind
as a plausible VLM would, reading what it needs from the request (the kind from the
``response_format`` schema name or the template's wording, image sizes, reply ids, the
main post).  The requested ``model`` picks a behaviour; ``name:arg`` passes an argument:

``good`` · ``latency:MS`` (good after MS ms) · ``nojson`` · ``wrongschema`` ·
``outside`` (boxes outside the image, roles for image 99) · ``longprompt`` ·
``ghostreply`` (labels a reply that does not exist) · ``storm:N`` (429 with
Retry-After 0.05 for the first N requests) · ``hang`` (never answers) · ``huge``
(a 5 MB body with Content-Length) · ``hugechunked`` (5 MB, no length) ·
``noformat`` (400 for ``response_format`` json_schema) · ``fence`` (good, inside a
```json fence) · ``unauthorized`` (401) · ``garbage`` (HTML, status 200) ·
``flaky`` (500 on the first request for a post) · ``costly`` (good, with usage.cost).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from typing import Any

KIND_MARKERS = (("prompt", "(the prompt)"), ("roles", "unused (unrelated"),
                ("screenshots", "bounding box"), ("fill-in", "templates meant for others"),
                ("quality", "Label the sample"), ("feedback", "Label each reply"),
                ("safety", "must not enter a public benchmark"))


def kind_of(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    name = (fmt.get("json_schema") or {}).get("name", "")
    if name.startswith("winnow_"):
        return name[len("winnow_"):].replace("_", "-")
    text = user_text(body) + system_text(body)
    for kind, marker in KIND_MARKERS:
        if marker in text:
            return kind
    return "unknown"


def system_text(body: dict[str, Any]) -> str:
    return next((m["content"] for m in body.get("messages", []) if m.get("role") == "system"
                 and isinstance(m.get("content"), str)), "")


def user_text(body: dict[str, Any]) -> str:
    for m in body.get("messages", []):
        if m.get("role") == "user":
            content = m.get("content")
            if isinstance(content, str):
                return content
            return "".join(p.get("text", "") for p in content if p.get("type") == "text")
    return ""


def n_images(body: dict[str, Any]) -> int:
    for m in body.get("messages", []):
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            return sum(p.get("type") == "image_url" for p in m["content"])
    return 0


def main_post(text: str) -> tuple[str, str]:
    m = re.search(r"^>> \[([^\]]+)\] [^:]*: (.*)$", text, re.M)
    if m:
        return m.group(1), m.group(2)
    m = re.search(r"(?:Post|Template post):\n(.*?)\n\n", text, re.S)
    return "", m.group(1) if m else ""


def replies(text: str) -> list[tuple[str, str]]:
    return re.findall(r"\[reply ([^\]]+)\] [^:\n]*: (.*)", text)


def images(text: str) -> list[tuple[int, int, int, str]]:
    return [(int(a), int(b), int(c), d or "") for a, b, c, d in
            re.findall(r"Image (\d+): (\d+)×(\d+) px(?:, ALT text: (.*))?", text)]


def good_answer(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """A valid answer of ``kind`` for the request."""
    text = user_text(body)
    _pid, post = main_post(text)
    if kind == "prompt":
        prompt = post.split(" #")[0].strip()
        return {"has_prompt": bool(prompt), "prompt": prompt}
    if kind == "roles":
        imgs = images(text)
        out = []
        for k, (index, _w, _h, alt) in enumerate(imgs):
            role = "output" if k == len(imgs) - 1 else "input"
            if "meme" in alt:
                role = "unused"
            out.append({"index": index, "role": role, "is_screenshot": "screenshot" in alt})
        return {"images": out}
    if kind == "screenshots":
        shots = []
        for index, w, h, _alt in images(text):
            shots.append({"image": index, "prompt": "make it a watercolor", "boxes": [
                {"role": "input", "box": [0, 0, w // 2, h // 2]},
                {"role": "output", "box": [w // 2, h // 2, w - w // 2, h - h // 2]}]})
        return {"screenshots": shots}
    if kind == "fill-in":
        if "___" not in post:
            return {"is_template": False, "completions": []}
        return {"is_template": True, "completions": [
            {"reply_id": rid, "completion": rtext,
             "prompt": post.split("TEMPLATE:")[-1].strip().replace("___", rtext)}
            for rid, rtext in replies(text)]}
    if kind == "quality":
        return {"quality": "Benchmark" if len(post) > 20 else "Trash", "reason": "clear"}
    if kind == "feedback":
        out = []
        for rid, rtext in replies(text):
            low = rtext.lower()
            if "yellow" in low:
                out.append({"reply_id": rid, "label": "failure", "keyword": "color drift"})
            elif "face" in low:
                out.append({"reply_id": rid, "label": "failure", "keyword": "identity shift"})
            elif "love" in low or "great" in low:
                out.append({"reply_id": rid, "label": "success", "keyword": ""})
            else:
                out.append({"reply_id": rid, "label": "neutral", "keyword": ""})
        return {"feedback": out}
    if kind == "safety":
        unsafe = "gore" in post.lower()
        return {"unsafe": unsafe, "categories": ["violent crimes"] if unsafe else []}
    return {}


def completion(content: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": "x", "object": "chat.completion", "choices": [
        {"index": 0, "finish_reason": "stop",
         "message": {"role": "assistant", "content": content}}]}
    if usage is not None:
        out["usage"] = usage
    return out


class VlmServer:
    """Start with ``with VlmServer() as srv: srv.url``; counts simultaneous requests."""

    def __init__(self, record: bool = True) -> None:
        self.record = record
        self.requests: list[dict[str, Any]] = []
        self.calls: dict[str, int] = {}
        self.total = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.seen: set[str] = set()
        self.lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._stop: asyncio.Event | None = None
        self._server: asyncio.AbstractServer | None = None
        self.url = ""

    def __enter__(self) -> VlmServer:
        self.thread.start()

        async def start() -> None:
            self._stop = asyncio.Event()
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0,
                                                      limit=2**20, backlog=1024)

        asyncio.run_coroutine_threadsafe(start(), self.loop).result(10)
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            assert self._stop is not None and self._server is not None
            self._stop.set()
            self._server.close()
            await asyncio.sleep(0.05)

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def reset_counts(self) -> None:
        with self.lock:
            self.max_in_flight = 0
            self.total = 0
            self.calls.clear()

    # -- HTTP ---------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                parts = line.decode("latin-1").split()
                if len(parts) < 2:
                    break
                headers: dict[str, str] = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                n = int(headers.get("content-length", "0") or 0)
                raw = await reader.readexactly(n) if n else b""
                keep = await self._respond(writer, parts[1], headers, raw)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            try:
                writer.close()
            except Exception:  # noqa: BLE001
                pass

    async def _send(self, writer: asyncio.StreamWriter, code: int, data: Any = None,
                    raw: bytes | None = None, headers: dict[str, str] | None = None) -> bool:
        payload = raw if raw is not None else json.dumps(data).encode()
        head = [f"HTTP/1.1 {code} X", "Content-Type: application/json",
                f"Content-Length: {len(payload)}"]
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await writer.drain()
        return True

    async def _respond(self, writer: asyncio.StreamWriter, path: str, headers: dict[str, str],
                       raw: bytes) -> bool:
        body = json.loads(raw or b"{}")
        model = str(body.get("model", ""))
        name, _, arg = model.partition(":")
        with self.lock:
            self.total += 1
            self.calls[name] = self.calls.get(name, 0) + 1
            if self.record:
                self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if path != "/v1/chat/completions":
                return await self._send(writer, 404, {"error": {"message": f"no route {path}"}})
            return await self._behave(writer, name, arg, body)
        finally:
            with self.lock:
                self.in_flight -= 1

    async def _behave(self, writer: asyncio.StreamWriter, name: str, arg: str,
                      body: dict[str, Any]) -> bool:
        kind = kind_of(body)
        usage = {"prompt_tokens": 100 + len(user_text(body)) // 4, "completion_tokens": 20,
                 "total_tokens": 120}
        if name == "latency":
            await asyncio.sleep(int(arg or 200) / 1000)
            name = "good"
        if name == "storm":
            with self.lock:
                storming = self.total <= int(arg or 20)
            if storming:
                return await self._send(writer, 429, {"error": {"message": "rate limited"}},
                                        headers={"Retry-After": "0.05"})
            name = "good"
        if name == "flaky":
            key = kind + user_text(body)
            with self.lock:
                first = key not in self.seen
                self.seen.add(key)
            if first:
                return await self._send(writer, 500, {"error": {"message": "overloaded"}})
            name = "good"
        if name == "dies":  # answers its first ``arg`` requests, then is down (503)
            with self.lock:
                down = self.total > int(arg)
            if down:
                return await self._send(writer, 503, {"error": {"message": "down"}})
            name = "good"
        if name == "picky":  # a server that fails on one post (its text holds ``arg``)
            if arg in user_text(body):
                return await self._send(writer, 500, {"error": {"message": "cannot do it"}})
            name = "good"
        if name == "hang":
            assert self._stop is not None
            await self._stop.wait()
            return False
        if name == "unauthorized":
            return await self._send(writer, 401, {"error": {"message": "invalid api key"}})
        if name == "garbage":
            return await self._send(writer, 200, raw=b"<html><body>Bad gateway</body></html>")
        if name in ("huge", "hugechunked"):
            chunk = b"x" * 65536
            if name == "huge":
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             + f"Content-Length: {80 * len(chunk)}\r\n\r\n".encode())
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Connection: close\r\n\r\n")
            try:
                for _ in range(80):
                    writer.write(chunk)
                    await writer.drain()
            except ConnectionError:
                pass
            return False
        if name == "noformat":
            fmt = (body.get("response_format") or {}).get("type")
            if fmt == "json_schema":
                return await self._send(writer, 400, {"error": {
                    "message": "response_format json_schema is not supported by this model"}})
            name = "fence" if fmt is None else "good"
        answer = good_answer(kind, body)
        if name == "nojson":
            return await self._send(writer, 200, completion("Sure! The prompt is: a cat."))
        if name == "wrongschema":
            return await self._send(writer, 200, completion(json.dumps({"answer": 42})))
        if name == "outside":
            if kind == "roles":
                answer = {"images": [{"index": 99, "role": "input", "is_screenshot": False}]}
            elif kind == "screenshots":
                for shot in answer["screenshots"]:
                    shot["boxes"][0]["box"] = [5000, 5000, 10, 10]
        if name == "longprompt" and kind == "prompt":
            answer = {"has_prompt": True, "prompt": "an invented prompt " * 400}
        if name == "ghostreply" and kind == "feedback":
            answer = {"feedback": [{"reply_id": "nobody", "label": "success", "keyword": ""}]}
        content = json.dumps(answer)
        if name == "fence":
            content = f"```json\n{content}\n```"
        if name == "costly":
            usage["cost"] = 0.0125
        return await self._send(writer, 200, completion(content, usage))
