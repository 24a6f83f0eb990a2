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
    assert report.coverage.cost.calls == len(ChatServer.seen)  # every request sent, the retried 429 too
    assert report.coverage.cost.failed_calls == 1
    assert report.coverage.cost.prompt_tokens == 11 * (report.coverage.cost.calls - report.coverage.cost.failed_calls)
    dumped = report.to_json()
    assert SECRET not in dumped and "local-test" in dumped
    cache_files = list((tmp_path / "cache").glob("*"))
    assert cache_files and all(SECRET.encode() not in f.read_bytes() for f in cache_files)


def test_reflection_and_insights_over_http_end_to_end(tmp_path, capsys):
    import json as _json

    from rt4chart.cli.main import main

    from .fault_server import FaultServer

    server = FaultServer(rate=0.0, verdict_for=lambda claim_id: "baseless").start()
    try:
        source = tmp_path / "in.jsonl"
        source.write_text("\n".join(_json.dumps({"id": f"r{i}", "context": "The dam is 40 metres high.",
                                                 "answer": f"The dam is {40 + i} metres high."}) for i in range(4)))
        env = ["--judge", "openai", "--base-url", server.url, "--api-key", SECRET, "--model", "m"]
        out = tmp_path / "out.jsonl"
        assert main(["batch", str(source), "-o", str(out), "--quiet", "--reflect", "--max-rounds", "2", *env]) == 0
        lines = [_json.loads(x) for x in out.read_text().splitlines()]
        assert len(lines) == 4 and all(x["status"] == "hallucinated" for x in lines)
        capsys.readouterr()
        md, js = tmp_path / "insights.md", tmp_path / "insights.json"
        assert main(["insights", str(out), "--markdown", str(md), "-o", str(js), "--warmup", "2", *env]) == 0
        printed = capsys.readouterr().out
        assert "What this RAG system should fix" in printed and "Unsupported claims" in md.read_text()
        report = _json.loads(js.read_text())
        assert report["warmup_steps"] == 2 and report["parallel_rows"] == 2
        assert report["items"][0]["rows"] == ["r0", "r1", "r2", "r3"]
        assert SECRET not in md.read_text() + js.read_text()
    finally:
        server.stop()
