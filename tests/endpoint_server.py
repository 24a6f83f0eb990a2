"""An OpenAI-compatible server on 127.0.0.1 whose behaviour a test sets, reproducing what real servers
do (llama.cpp's llama-server, llama-cpp-python's server, OpenAI) with their own error messages.

`behaviour` is one of:
  ok            schema-valid replies (sentence-per-claim decomposition, every claim entailed)
  garbage       HTTP 200 with text that is not JSON
  401 | 403     a rejected key (the message echoes the key, as OpenAI's does)
  404           an unknown model (OpenAI's wording)
  400           a request the server rejects
  llama-cpp-python   HTTP 500 for response_format json_schema (its pydantic literal_error); accepts
                json_object with a "schema"
  no-json-schema     HTTP 400 for json_schema and for json_object + schema; accepts plain json_object
  partial       the decomposition covers only the first sentence of the answer
  loop          the model never stops: replies are cut at max_tokens (finish_reason "length")
  slow          no reply for `slow_s` seconds
  drip          the reply's bytes one at a time, `drip_s` apart (each read is quick; the whole reply is not)
`n_ctx` (llama-server's /props) makes prompts longer than n_ctx * 4 characters fail with llama-server's
context-size error. Every request is recorded in `requests`; `stats` counts outcomes.
"""
from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional

from .fakes import answer_of, default_reply, schema_name_of

LLAMA_CPP_PYTHON_500 = ("[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should "
                        "be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or "
                        "'json_object'\"}}]")


class LoopbackServer:
    """An HTTP server on 127.0.0.1 (a free port) whose POSTs and GETs go to `_post` and `_get`; a context manager
    that serves in a daemon thread and stops on exit. `url` ends in /v1."""

    def _serve(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server API
                server._post(self)

            def do_GET(self):  # noqa: N802 - http.server API
                server._get(self)

            def do_DELETE(self):  # noqa: N802 - http.server API
                server._delete(self)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def _post(self, handler) -> None:
        raise NotImplementedError

    def _get(self, handler) -> None:
        raise NotImplementedError

    def _delete(self, handler) -> None:
        handler.send_response(405)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class EndpointServer(LoopbackServer):
    def __init__(self, behaviour: str = "ok", n_ctx: Optional[int] = None, slow_s: float = 5.0, drip_s: float = 0.2):
        self.drip_s = drip_s
        self.behaviour, self.n_ctx, self.slow_s = behaviour, n_ctx, slow_s
        self.requests: list[dict] = []
        self.stats: Counter = Counter()
        self.lock = threading.Lock()
        self._serve()

    @property
    def chat_requests(self) -> int:
        return self.stats["chat"]

    def _send(self, handler, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        try:
            if self.behaviour == "drip" and status == 200:
                for i in range(len(data)):
                    handler.wfile.write(data[i:i + 1])
                    handler.wfile.flush()
                    time.sleep(self.drip_s)
            else:
                handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _get(self, handler) -> None:
        with self.lock:
            self.stats["get " + handler.path] += 1
        if handler.path == "/props" and self.n_ctx:
            return self._send(handler, 200, {"default_generation_settings": {"n_ctx": self.n_ctx}, "total_slots": 1})
        return self._send(handler, 404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})

    def _error(self, handler, status: int, message: str, kind: str) -> None:
        self._send(handler, status, {"error": {"code": status, "message": message, "type": kind}})

    def _post(self, handler) -> None:
        body = json.loads(handler.rfile.read(int(handler.headers.get("Content-Length", 0))))
        with self.lock:
            self.requests.append(body)
            self.stats["chat"] += 1
        behaviour, fmt = self.behaviour, body.get("response_format") or {}
        key = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        if behaviour in ("401", "403"):
            return self._error(handler, int(behaviour), f"Incorrect API key provided: {key}. You can find your "
                               "API key at https://platform.openai.com/account/api-keys.", "invalid_request_error")
        if behaviour == "404":
            return self._error(handler, 404, f"The model `{body.get('model')}` does not exist or you do not have "
                               "access to it.", "invalid_request_error")
        if behaviour == "400":
            return self._error(handler, 400, "Invalid value for 'temperature': expected a number.",
                               "invalid_request_error")
        if behaviour == "llama-cpp-python" and fmt.get("type") == "json_schema":
            return self._error(handler, 500, LLAMA_CPP_PYTHON_500, "internal_server_error")
        if behaviour == "no-json-schema" and (fmt.get("type") == "json_schema" or "schema" in fmt):
            return self._error(handler, 400, "'response_format.type' json_schema is not supported by this model",
                               "invalid_request_error")
        prompt_chars = sum(len(m["content"]) for m in body["messages"])
        if self.n_ctx and prompt_chars // 4 > self.n_ctx:
            return self._error(handler, 400, f"request ({prompt_chars // 4} tokens) exceeds the available context "
                               f"size ({self.n_ctx} tokens)", "exceed_context_size_error")
        if behaviour == "slow":
            time.sleep(self.slow_s)
        name = schema_name_of(body)
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        content, finish = default_reply(name, prompt), "stop"
        if behaviour == "garbage":
            content = "Sure! Here is my analysis: everything looks fine."
        elif behaviour == "partial" and name == "decomposition":
            first = re.split(r"(?<=[.!?])\s+", answer_of(prompt))[0]
            content = json.dumps({"claims": [{"text": first, "answer_substrings": [first]}]})
        elif behaviour == "loop":
            budget = body.get("max_tokens") or 100_000
            content, finish = ('{"claims": [{"text": "' + "and so on " * 100_000)[: budget * 4], "length"
        with self.lock:
            self.stats[finish] += 1
        self._send(handler, 200, {
            "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4,
                      "total_tokens": (prompt_chars + len(content)) // 4}})
