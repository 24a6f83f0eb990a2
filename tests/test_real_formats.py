"""Files written by the real packages (tests/formats_writer.py in .venv-formats: ragas, deepeval, langchain with
langsmith's serializer, trulens-core's own database and events, openinference-instrumentation-langchain's spans
through the OpenTelemetry SDK) round-trip through `rt4chart predict`: each format recognised and said, every record
read once, in order, with its question, its passages as numbered passages, and its answer."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from rt4chart.cli.main import main
from rt4chart.data.columns import known_format
from rt4chart.data.records import open_table, passages_text, table_records

from .loopback import require

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
WRITERS = Path(os.environ.get("RT4CHART_FORMATS_PYTHON", ROOT / ".venv-formats" / "bin" / "python"))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    require(WRITERS, "environment of the packages that write the files", "--formats")
    out = tmp_path_factory.mktemp("formats")
    env = {**os.environ, "HOME": str(out), "DEEPEVAL_RESULTS_FOLDER": str(out / "deepeval")}
    done = subprocess.run([str(WRITERS), str(ROOT / "tests" / "formats_writer.py"), str(out)], env=env, cwd=out,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads((out / "expected.json").read_text())


def test_every_file_the_packages_wrote_is_recognised_and_read_record_for_record(written):
    out, expected = written
    assert len(expected["files"]) == 12
    for name, fmt in expected["files"].items():
        table = open_table(str(out / name))
        assert (table.format or known_format(table.columns)[0]) == fmt, name  # recognised as what wrote it
        records = list(table_records(table, {}))
        assert len(records) == len(expected["logs"]), name
        for record, (question, passages, answer, _reference) in zip(records, expected["logs"]):
            assert (record.question, record.answer) == (question, answer), name
            if name.startswith(("langsmith", "openinference")):  # LangChain Documents carry their metadata's title
                wanted = passages_text([{"page_content": p, "metadata": {"title": f"Atlas page {i + 1}"}}
                                        for i, p in enumerate(passages)])
            else:
                wanted = passages_text(passages)
            assert record.context == wanted, name  # a list stays a list of passages, whatever the file type


@pytest.mark.parametrize("name", ["ragas.csv", "deepeval_goldens_csv.csv", "deepeval_test_cases.json",
                                  "langsmith_runs.jsonl", "default.sqlite", "openinference_langchain.jsonl"])
def test_predict_says_which_format_it_read_and_writes_one_line_per_record(written, name, tmp_path, capsys):
    out, expected = written
    assert main(["predict", "--judge", "offline", str(out / name), "-o", str(tmp_path / "p.jsonl"), "--quiet"]) == 0
    assert f"read as {expected['files'][name]}" in capsys.readouterr().err
    lines = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert [x["status"] for x in lines] == ["faithful", "hallucinated", "faithful"]  # 2001 is not 14 May 1998


def test_the_stored_run_says_which_format_its_input_was_read_as(written, tmp_path, monkeypatch):
    from rt4chart.store import Store

    out, expected = written
    monkeypatch.setenv("RT4CHART_DB", f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    assert main(["batch", "--judge", "offline",
                 str(out / "langsmith_trees.jsonl"), "-o", str(tmp_path / "b.jsonl"), "--quiet",
                 "--run-name", "langsmith v1"]) == 0
    run = Store().get_run("langsmith v1")
    assert run.manifest["input_format"] == "LangSmith runs" and run.rows == 3
