"""The openai judge over real HTTP against a small OpenAI-compatible server on 127.0.0.1."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rt4chart import audit
from rt4chart.judges.factory import make_judge

from .fakes import default_reply

SECRET = "sk-rt4chart-test-SECRET-0123456789"


class ChatServer(BaseHTTPRequestHandler):
    """Answers /v1/chat/completions with schema-valid replies; the first call gets a 429."""

    seen: list = []
    fail_first = True

    def do_POST(self):  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if type(self).fail_first:
            type(self).fail_first = False
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "slow down"}}')
            return
        name = body["response_format"]["json_schema"]["name"]
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        reply = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": default_reply(name, prompt)}}],
                 "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    ChatServer.seen, ChatServer.fail_first = [], True
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ChatServer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_a_full_audit_over_http_retries_a_429_and_counts_tokens(server, tmp_path):
    judge = make_judge("openai", base_url=server, api_key=SECRET, model="local-test", timeout_s=10)
    report = audit("The tower is 300 metres tall. It opened in 1889.", "The tower opened in 1889.", judge=judge)
    assert report.status == "faithful"
    assert ChatServer.seen[0]["path"] == "/v1/chat/completions"
    assert ChatServer.seen[0]["auth"] == f"Bearer {SECRET}"
    assert report.coverage.judge_calls == len(ChatServer.seen) - 1  # the 429 was retried, not counted
    assert report.coverage.prompt_tokens == 11 * report.coverage.judge_calls
    dumped = report.to_json()
    assert SECRET not in dumped and "local-test" in dumped
    cache_files = list((tmp_path / "cache").glob("*"))
    assert cache_files and all(SECRET.encode() not in f.read_bytes() for f in cache_files)
