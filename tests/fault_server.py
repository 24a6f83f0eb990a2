"""A fault-injecting OpenAI-compatible chat-completions server for reliability tests.

Bound to 127.0.0.1 only. For each request it decides, from a seeded hash of (request body, how many
times that body was seen), whether to inject a fault — 429 with Retry-After, 500, a reply slower
than the client's timeout, garbage text, truncated JSON, or a dropped connection — and otherwise answers a schema-valid
reply. The same seed and requests give the same faults, whatever the thread interleaving.

Run by hand: python -m tests.fault_server --port 8765 --rate 0.1 --seed 7
"""
from __future__ import annotations

import argparse
import hashlib
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .fakes import claim_ids, default_reply, schema_name_of

FAULTS = ("429", "500", "slow", "garbage", "truncated", "reset")


class FaultServer:
    """Start with `start()`, stop with `stop()`; `url` is the /v1 base URL; `stats` counts outcomes."""

    def __init__(self, rate: float = 0.1, seed: int = 0, slow_s: float = 2.0, port: int = 0,
                 verdict_for=None):
        self.rate, self.seed, self.slow_s = rate, seed, slow_s
        self.stats: Counter = Counter()
        self.seen: Counter = Counter()
        self.lock = threading.Lock()
        self.verdict_for = verdict_for
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server API
                server._handle(self)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> "FaultServer":
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _fault(self, body: bytes) -> str | None:
        digest = hashlib.sha256(body).hexdigest()
        with self.lock:
            self.seen[digest] += 1
            nth = self.seen[digest]
        roll = int(hashlib.sha256(f"{self.seed}:{digest}:{nth}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        if roll >= self.rate:
            return None
        return FAULTS[int(roll / self.rate * len(FAULTS)) % len(FAULTS)]

    def _send(self, handler, status: int, payload: bytes, headers: dict | None = None) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            handler.send_header(k, v)
        handler.end_headers()
        try:
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _handle(self, handler) -> None:
        body = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        if not handler.path.endswith("/v1/chat/completions"):
            key = handler.headers.get("Authorization", "").removeprefix("Bearer ")
            message = json.dumps({"error": {"message": f"Incorrect API key provided: {key}", "code": "invalid_api_key"}})
            return self._send(handler, 401, message.encode())  # echoes the key, as some servers do
        fault = self._fault(body)
        with self.lock:
            self.stats["requests"] += 1
            self.stats[fault or "ok"] += 1
        if fault == "429":
            return self._send(handler, 429, b'{"error":{"message":"rate limited"}}', {"Retry-After": "0"})
        if fault == "500":
            return self._send(handler, 500, b'{"error":{"message":"internal error"}}')
        if fault == "reset":  # drop the connection without a reply
            handler.close_connection = True
            try:
                handler.connection.shutdown(2)
            except OSError:
                pass
            return None
        if fault == "slow":
            time.sleep(self.slow_s)
        request = json.loads(body)
        name = schema_name_of(request)
        prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
        content = default_reply(name, prompt)
        if name == "verification" and self.verdict_for is not None:
            content = json.dumps({"results": [{"claim_id": i, "verdict": self.verdict_for(i), "evidence_sentence_ids": [0],
                                               "unsupported_text": [], "reason": "scripted"} for i in claim_ids(prompt)]})
        if fault == "garbage":
            content = "Sure! Here is my analysis: everything looks fine."
        elif fault == "truncated":
            content = content[: max(1, len(content) // 2)]
        reply = {"id": "chatcmpl-fault", "object": "chat.completion", "created": 0, "model": request["model"],
                 "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                 "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(content) // 4,
                           "total_tokens": (len(prompt) + len(content)) // 4}}
        self._send(handler, 200, json.dumps(reply).encode())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--rate", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=600, help="stop by itself after this long")
    args = ap.parse_args()
    server = FaultServer(args.rate, args.seed, port=args.port).start()
    print(f"serving {server.url} (fault rate {args.rate}, seed {args.seed}) for {args.seconds:.0f} s", flush=True)
    time.sleep(args.seconds)
    server.stop()


if __name__ == "__main__":
    main()
