"""The Phoenix round trip against a real Arize Phoenix server (`arize-phoenix` from PyPI, in .venv-phoenix:
scripts/setup.sh --phoenix), started here on loopback ports with its data in a temporary folder, and stopped
after: spans sent by the OpenTelemetry SDK, pulled and audited by rt4chart, the verdicts written back as span
annotations and read back through Phoenix's client; a stored run exported as a Phoenix dataset."""
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("phoenix.client")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from rt4chart.cli.main import main  # noqa: E402
from rt4chart.data.traces import PHOENIX_FORMAT  # noqa: E402

from .loopback import free_port, require  # noqa: E402
from .traces_made import QUESTIONS, emit, provider_for  # noqa: E402

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
SERVER = Path(os.environ.get("RT4CHART_PHOENIX_SERVER", ROOT / ".venv-phoenix" / "bin" / "phoenix"))


@pytest.fixture(scope="module")
def phoenix_url(tmp_path_factory):
    require(SERVER, "Phoenix server", "--phoenix")
    work = tmp_path_factory.mktemp("phoenix")
    port = free_port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(work), "PHOENIX_PORT": str(port), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_GRPC_PORT": str(free_port()), "PHOENIX_TELEMETRY_ENABLED": "false", "HOME": str(work)}
    log = (work / "server.log").open("w")
    server = subprocess.Popen([str(SERVER), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Phoenix server did not start: {(work / 'server.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def project(phoenix_url):
    """Three RAG traces sent to the server over OTLP/HTTP by the OpenTelemetry SDK."""
    import httpx
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from phoenix.client import Client

    emit(provider_for("rag-app", OTLPSpanExporter(f"{phoenix_url}/v1/traces")))
    client = Client(base_url=phoenix_url)
    deadline = time.monotonic() + 30
    while True:  # the server takes spans in the background: the project appears once the first is stored
        try:
            if len(client.spans.get_spans(project_identifier="rag-app", limit=100)) >= 9:
                return "rag-app"
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code != 404:
                raise
        assert time.monotonic() < deadline, "the server did not take the spans"
        time.sleep(0.5)


def test_spans_pulled_from_phoenix_are_audited_and_the_verdicts_go_back_as_span_annotations(
        phoenix_url, project, tmp_path, capsys):
    from phoenix.client import Client

    spans = tmp_path / "spans.jsonl"
    assert main(["phoenix", "pull", "--endpoint", phoenix_url, "--project", project, "-o", str(spans)]) == 0
    assert main(["predict", "--judge", "offline", str(spans), "-o", str(tmp_path / "audited.jsonl"), "--quiet"]) == 0
    assert f"read as {PHOENIX_FORMAT}" in capsys.readouterr().err
    lines = [json.loads(x) for x in (tmp_path / "audited.jsonl").read_text().splitlines()]
    assert len(lines) == 3
    assert main(["phoenix", "annotate", str(tmp_path / "audited.jsonl"), "--endpoint", phoenix_url, "--project",
                 project]) == 0
    assert "3 span annotations" in capsys.readouterr().err

    client = Client(base_url=phoenix_url)
    roots = client.spans.get_spans(project_identifier=project, parent_id="null", limit=100)
    root_of = {s["context"]["trace_id"]: s["context"]["span_id"] for s in roots}
    assert sorted(root_of) == sorted(x["id"] for x in lines)  # every trace, and only the traces
    found = client.spans.get_span_annotations(span_ids=list(root_of.values()), project_identifier=project)
    by_span = {a["span_id"]: a for a in found if a["name"] == "rt4chart hallucination"}
    assert len(by_span) == 3
    status_of = {x["id"]: x["status"] for x in lines}
    assert {trace: by_span[span]["result"]["label"] for trace, span in root_of.items()} == status_of
    answers = {x["id"]: x for x in lines}
    bridge = next(t for t, x in answers.items() if x["status"] == "hallucinated")
    said = by_span[root_of[bridge]]["result"]["explanation"]
    assert QUESTIONS[1][2] in said and "The bridge opened on 14 May 1998." in said  # the claim and its evidence
    assert by_span[root_of[bridge]]["annotator_kind"] == "CODE"
    assert sorted(x["status"] for x in lines) == ["faithful", "faithful", "hallucinated"]


def test_phoenix_span_tables_saved_as_parquet_read_the_same_as_pulled_spans(phoenix_url, project, tmp_path):
    from phoenix.client import Client

    frame = Client(base_url=phoenix_url).spans.get_spans_dataframe(project_identifier=project)
    frame.to_parquet(tmp_path / "spans.parquet")
    assert main(["predict", "--judge", "offline",
                 str(tmp_path / "spans.parquet"), "-o", str(tmp_path / "a.jsonl"), "--quiet"]) == 0
    assert main(["phoenix", "pull", "--endpoint", phoenix_url, "--project", project, "-o",
                 str(tmp_path / "spans.jsonl")]) == 0
    assert main(["predict", "--judge", "offline",
                 str(tmp_path / "spans.jsonl"), "-o", str(tmp_path / "b.jsonl"), "--quiet"]) == 0
    a, b = ([json.loads(x) for x in (tmp_path / f).read_text().splitlines()] for f in ("a.jsonl", "b.jsonl"))
    assert sorted(x["id"] for x in a) == sorted(x["id"] for x in b)
    assert {x["id"]: x["status"] for x in a} == {x["id"]: x["status"] for x in b}


def test_a_stored_run_exports_to_a_phoenix_dataset(phoenix_url, project, tmp_path, monkeypatch, capsys):
    from phoenix.client import Client

    monkeypatch.setenv("RT4CHART_DB", f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    spans = tmp_path / "spans.jsonl"
    assert main(["phoenix", "pull", "--endpoint", phoenix_url, "--project", project, "-o", str(spans)]) == 0
    assert main(["batch", "--judge", "offline",
                 str(spans), "-o", str(tmp_path / "out.jsonl"), "--quiet", "--run-name", "traces v1"]) == 0
    assert main(["phoenix", "dataset", "traces v1", "--endpoint", phoenix_url, "--name", "audited traces"]) == 0
    assert "3 examples" in capsys.readouterr().err
    made = Client(base_url=phoenix_url).datasets.get_dataset(dataset="audited traces")
    examples = list(made.examples)
    assert len(examples) == 3
    statuses = sorted(e["metadata"]["rt4chart_status"] for e in examples)
    assert statuses == ["faithful", "faithful", "hallucinated"]
    assert any("Passage 1:" in e["input"]["context"] for e in examples)
    assert main(["phoenix", "pull", "--endpoint", phoenix_url, "--project", "no-such-project", "-o",
                 str(tmp_path / "x.jsonl")]) == 2
    assert "no-such-project" in capsys.readouterr().err
