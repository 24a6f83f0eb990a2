"""A loopback server that follows OpenAI's documented Batch API, for the provider-batch tests: `/v1/files`
(multipart upload, purpose "batch"; `GET /v1/files/{id}/content`), `/v1/batches` (create, retrieve) with the
statuses validating -> in_progress -> finalizing -> completed (one step per retrieve), output and error files,
and request_counts. Each request line is answered as EndpointServer's "ok" behaviour answers it (the same
replies as the synchronous path's test server).

Faults a test sets: `error_first` (custom ids whose first n answers are an error line, HTTP 500),
`always_error` (custom ids that always fail), `error_status` (the HTTP status of a custom id's error line, 500
by default), `garble` (custom ids whose first answer is written as a line that is not JSON), `expire_after` (a batch ends `expired` after answering only
this many of its lines), `create_429` (how many batch creations are refused with 429 first), `upload_status` and
`create_status` (the statuses of the next uploads and creations, e.g. [500, 413]: each refused so; an empty list
answers normally), `lost_files` (how many output files answer 404 to their first download). Files can be
deleted (`DELETE /v1/files/{id}`, counted in `stats["deleted"]`). A batch cancelled
(`POST /v1/batches/{id}/cancel`) before it completes goes `cancelling`, then `cancelled` with the first half
of its lines answered.
It also answers synchronous chat completions (the insights' warm-up) with the same replies.
It counts what it receives: files, batches, chat calls, and every request line by custom id.
"""
from __future__ import annotations

import email.parser
import email.policy
import json
import threading
from collections import Counter
from typing import Optional

from .endpoint_server import LoopbackServer
from .fakes import default_reply, schema_name_of

STEPS = ("validating", "in_progress", "finalizing", "completed")


def chat_reply(body: dict) -> dict:
    prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
    prompt_chars = sum(len(m["content"]) for m in body["messages"])
    content = default_reply(schema_name_of(body), prompt)
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4,
                      "total_tokens": (prompt_chars + len(content)) // 4}}


class BatchServer(LoopbackServer):
    def __init__(self, error_first: Optional[dict[str, int]] = None, always_error: frozenset = frozenset(),
                 expire_after: Optional[int] = None, create_429: int = 0,
                 error_status: Optional[dict[str, int]] = None, garble: frozenset = frozenset(),
                 upload_status: Optional[list[int]] = None, create_status: Optional[list[int]] = None,
                 lost_files: int = 0, fail_batches: bool = False):
        self.fail_batches = fail_batches  # every batch ends 'failed' (as a provider that rejects the input file)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.lines_received: Counter = Counter()   # custom_id -> how many times it was sent in a batch
        self.answered: Counter = Counter()
        self.stats: Counter = Counter()
        self.error_first = dict(error_first or {})
        self.always_error = always_error
        self.error_status = dict(error_status or {})
        self.garble = set(garble)
        self.expire_after = expire_after
        self.create_429 = create_429
        self.upload_status = list(upload_status or [])
        self.create_status = list(create_status or [])
        self.lost_files = lost_files
        self.lock = threading.Lock()
        self._serve()

    # -- HTTP ---------------------------------------------------------------------------------------

    def _send(self, handler, status: int, payload, raw: Optional[bytes] = None) -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/octet-stream" if raw is not None else "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _post(self, handler) -> None:
        data = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        path = handler.path
        with self.lock:
            if path == "/v1/files":
                return self._upload(handler, data)
            if path == "/v1/batches":
                return self._create(handler, json.loads(data))
            if path.startswith("/v1/batches/") and path.endswith("/cancel"):
                return self._cancel(handler, path.split("/")[3])
            if path == "/v1/chat/completions":  # a synchronous call (a warm-up step), answered alike
                self.stats["chat"] += 1
                return self._send(handler, 200, chat_reply(json.loads(data)))
        self._send(handler, 404, {"error": {"message": f"no route {path}"}})

    def _get(self, handler) -> None:
        path = handler.path
        with self.lock:
            if path.startswith("/v1/files/") and path.endswith("/content"):
                file_id = path.split("/")[3]
                if self.lost_files > 0 or file_id not in self.files:
                    self.lost_files = max(0, self.lost_files - 1)
                    self.stats["lost"] += 1
                    return self._send(handler, 404, {"error": {"message": f"No such File object: {file_id}"}})
                return self._send(handler, 200, None, raw=self.files[file_id])
            if path.startswith("/v1/batches/"):
                return self._send(handler, 200, self._advance(path.split("/")[3].split("?")[0]))
            if path.split("?")[0] == "/v1/batches":  # newest first, one page (as OpenAI lists them)
                self.stats["lists"] += 1
                listed = [self._public(b) for b in reversed(list(self.batches.values()))]
                return self._send(handler, 200, {"object": "list", "data": listed, "has_more": False,
                                                 "first_id": listed[0]["id"] if listed else None,
                                                 "last_id": listed[-1]["id"] if listed else None})
        self._send(handler, 404, {"error": {"message": f"no route {path}"}})

    def _delete(self, handler) -> None:
        file_id = handler.path.split("/")[3] if handler.path.startswith("/v1/files/") else ""
        with self.lock:
            if file_id in self.files:
                del self.files[file_id]
                self.stats["deleted"] += 1
                return self._send(handler, 200, {"id": file_id, "object": "file", "deleted": True})
        self._send(handler, 404, {"error": {"message": f"No such File object: {file_id}"}})

    def _refused(self, handler, statuses: list[int], what: str) -> bool:
        if not statuses:
            return False
        status = statuses.pop(0)
        self.stats[f"{what}_{status}"] += 1
        self._send(handler, status, {"error": {"message": f"{what} refused (HTTP {status})", "type": "server_error"}})
        return True

    def _upload(self, handler, data: bytes) -> None:
        if self._refused(handler, self.upload_status, "upload"):
            return
        head = f"Content-Type: {handler.headers['Content-Type']}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + data)
        parts = {p.get_param("name", header="content-disposition"): p for p in message.iter_parts()}
        purpose = parts["purpose"].get_content().strip()
        content = parts["file"].get_payload(decode=True)
        self.stats["uploads"] += 1
        file_id = f"file-{self.stats['uploads'] + 1000}"
        self.files[file_id] = content
        self.stats["files"] += 1
        self._send(handler, 200, {"id": file_id, "object": "file", "bytes": len(content), "created_at": 0,
                                  "filename": parts["file"].get_filename(), "purpose": purpose, "status": "processed"})

    def _create(self, handler, body: dict) -> None:
        if self._refused(handler, self.create_status, "create"):
            return
        if self.create_429 > 0:
            self.create_429 -= 1
            self.stats["429"] += 1
            return self._send(handler, 429, {"error": {"message": "Rate limit reached for batches", "type": "requests"}})
        lines = [json.loads(x) for x in self.files[body["input_file_id"]].decode().splitlines() if x.strip()]
        for line in lines:
            self.lines_received[line["custom_id"]] += 1
        batch_id = f"batch_{len(self.batches) + 1}"
        self.batches[batch_id] = {"id": batch_id, "object": "batch", "endpoint": body["endpoint"],
                                  "input_file_id": body["input_file_id"], "completion_window": body["completion_window"],
                                  "status": "validating", "output_file_id": None, "error_file_id": None,
                                  "created_at": 0, "metadata": body.get("metadata"), "errors": None,
                                  "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                                  "_lines": lines}
        self.stats["batches"] += 1
        self._send(handler, 200, self._public(self.batches[batch_id]))

    @staticmethod
    def _public(batch: dict) -> dict:
        return {k: v for k, v in batch.items() if not k.startswith("_")}

    def _cancel(self, handler, batch_id: str) -> None:
        batch = self.batches[batch_id]
        self.stats["cancels"] += 1
        if batch["status"] in STEPS[:-1]:
            batch["status"] = "cancelling"
        self._send(handler, 200, self._public(batch))

    def _advance(self, batch_id: str) -> dict:
        batch = self.batches[batch_id]
        if batch["status"] == "cancelling":  # as OpenAI's: the requests that ran are in the output file
            self._finish(batch, cancelled=True)
        elif batch["status"] == "validating" and self.fail_batches:
            batch["status"] = "failed"
            batch["errors"] = {"object": "list", "data": [{"code": "invalid_request", "line": 1,
                                                           "message": "This model is not supported by the Batch API."}]}
        elif batch["status"] in STEPS[:-1]:
            batch["status"] = STEPS[STEPS.index(batch["status"]) + 1]
            if batch["status"] == "completed":
                self._finish(batch)
        return self._public(batch)

    def _finish(self, batch: dict, cancelled: bool = False) -> None:
        out, errors = [], []
        lines = batch["_lines"]
        if cancelled:
            lines = lines[:len(lines) // 2]
            batch["status"] = "cancelled"
        elif self.expire_after is not None and len(lines) > self.expire_after:
            lines = lines[:self.expire_after]
            batch["status"] = "expired"
        for line in lines:
            cid = line["custom_id"]
            self.answered[cid] += 1
            if cid in self.always_error or self.error_first.get(cid, 0) > 0:
                self.error_first[cid] = self.error_first.get(cid, 0) - 1
                status = self.error_status.get(cid, 500)
                message = ("The server had an error processing your request" if status == 500 else
                           f"Invalid request (HTTP {status}): the request body was refused")
                errors.append({"id": f"req-{cid}", "custom_id": cid, "response": {
                    "status_code": status, "request_id": "r", "body": {"error": {"message": message}}},
                    "error": None})
            elif cid in self.garble:
                self.garble.discard(cid)
                out.append("{not json: the provider's line was cut")
            else:
                out.append({"id": f"req-{cid}", "custom_id": cid, "response": {"status_code": 200, "request_id": "r",
                                                                                "body": chat_reply(line["body"])},
                            "error": None})
        for key, rows in (("output_file_id", out), ("error_file_id", errors)):
            if rows:
                self.stats["outputs"] += 1
                file_id = f"file-out-{self.stats['outputs']}"
                self.files[file_id] = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                                              for r in rows).encode()
                batch[key] = file_id
        batch["request_counts"] = {"total": len(batch["_lines"]), "completed": len(out), "failed": len(errors)}
