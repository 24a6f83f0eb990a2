"""Nothing lost, nothing invented: every input record becomes exactly one output row, whole, in order,
whatever the export looks like, and the output depends on the input and settings only."""
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rt4chart import audit
from rt4chart.cli.main import main
from rt4chart.data.records import InputError, parse_rows, read_records

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "benchmarks"
DEV_FILES = [BENCH / f"{name}_dev.jsonl" for name in ("ragtruth", "faithbench", "halueval_qa")]


def cli(*args, env_extra=None, timeout=300, **kwargs):
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "RT4CHART_DATA_DIR": os.environ["RT4CHART_DATA_DIR"],  # never the user's own run store
           "RT4CHART_CACHE_DIR": str(kwargs.pop("cache_dir", ROOT / ".pytest_cache" / "rt4chart")),
           **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "rt4chart", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, **kwargs)


def rows_with_hard_cells(n: int) -> list[dict]:
    return [{"id": f"r{i}", "context": f'The report says "the dam is {40 + i} m high".\nIt opened in {1900 + i}.',
             "answer": f'It is "{40 + i} m" high,\r\nand it opened in {1900 + i}.', "question": ""}
            for i in range(n)]


def write_csv(path: Path, rows: list[dict], **options) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, **options)
        writer.writerow(list(rows[0]))
        for row in rows:
            writer.writerow(list(row.values()))


@pytest.mark.parametrize("options", [{}, {"quoting": csv.QUOTE_ALL}, {"lineterminator": "\n"},
                                     {"quoting": csv.QUOTE_ALL, "lineterminator": "\n"}])
def test_csv_writer_exports_with_doubled_quotes_newlines_and_crlf_read_back_exactly(tmp_path, options):
    rows = rows_with_hard_cells(50)
    write_csv(tmp_path / "x.csv", rows, **options)
    records = read_records(str(tmp_path / "x.csv"))
    assert [(r.id, r.context, r.answer) for r in records] == [(x["id"], x["context"], x["answer"]) for x in rows]


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_csv_writer_file_through_predict_gives_one_line_per_record_in_order(tmp_path):
    rows = rows_with_hard_cells(30)
    write_csv(tmp_path / "x.csv", rows, quoting=csv.QUOTE_ALL)  # CRLF line ends: csv.writer's default
    result = cli("predict", "--judge", "offline", str(tmp_path / "x.csv"), "-o", str(tmp_path / "o.jsonl"), "--quiet",
                 cache_dir=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert [(x["id"], x["row"]) for x in lines] == [(f"r{i}", i + 1) for i in range(30)]


@pytest.mark.parametrize("text, line, what", [
    ('id,context,answer\n1,"He said,hi\n2,c,d\n3,e,f\n', 2, "never closed"),
    ('id,context,answer\n1,a,b\n2,c,d,e\n3,e,f\n', 3, "4 fields where the header has 3"),
    ('id,context,answer\n1,a,b,x\n2,c,d,e\n', 2, "4 fields where the header has 3"),
    ('id,,answer\n1,a,b\n', 1, "column 2 of the header has no name"),
    ('id,context,context\n1,a,b\n', 1, "'context' twice"),
    ('id,context,answer\n1,"quoted"junk,b\n', 2, "malformed quoting"),
    ('id,context,answer\n1,He said\nthen left,b\n', 2, "2 fields where the header has 3"),  # a split row
])
@pytest.mark.slow  # over 1.8 s (measured, 2026-12-04): left out of make test-fast
def test_a_malformed_csv_is_refused_with_its_line_and_nothing_is_read(tmp_path, text, line, what):
    (tmp_path / "bad.csv").write_text(text, encoding="utf-8", newline="")
    with pytest.raises(InputError) as err:
        read_records(str(tmp_path / "bad.csv"))
    assert f"line {line}" in str(err.value) or f"lines {line}-" in str(err.value)
    assert what in str(err.value)
    result = cli("predict", "--judge", "offline", str(tmp_path / "bad.csv"), "-o", str(tmp_path / "o.jsonl"), "--quiet",
                 cache_dir=tmp_path)
    assert result.returncode == 2 and what in result.stderr and not (tmp_path / "o.jsonl").exists()


@pytest.mark.skipif(not DEV_FILES[0].exists(), reason="needs ../shared/benchmarks")
@pytest.mark.parametrize("writer", ["csv-default", "csv-quote-all", "csv-lf", "csv-quote-all-lf", "pandas"])
def test_every_dev_record_round_trips_through_common_csv_writers(tmp_path, writer):
    import pandas as pd

    gold = [json.loads(line) for path in DEV_FILES for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [{"id": g["id"], "context": g["context"], "answer": g["answer"]} for g in gold]
    path = tmp_path / "dev.csv"
    if writer == "pandas":
        pd.DataFrame(rows).to_csv(path, index=False)
    else:
        options = {"csv-default": {}, "csv-quote-all": {"quoting": csv.QUOTE_ALL}, "csv-lf": {"lineterminator": "\n"},
                   "csv-quote-all-lf": {"quoting": csv.QUOTE_ALL, "lineterminator": "\n"}}[writer]
        write_csv(path, rows, **options)
    records = read_records(str(path))
    assert len(records) == len(rows) == 1389
    assert [(r.id, r.context, r.answer) for r in records] == [(x["id"], x["context"], x["answer"]) for x in rows]


@pytest.mark.skipif(not DEV_FILES[0].exists(), reason="needs ../shared/benchmarks")
@pytest.mark.slow
def test_predict_output_is_identical_under_any_hash_seed(tmp_path):
    outputs = []
    procs = []
    for seed in ("0", "1", "4242"):
        out = tmp_path / f"seed{seed}.jsonl"
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "rt4chart", "predict", "--judge", "offline",
             str(DEV_FILES[0]), "-o", str(out), "--quiet"],
            env={"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": seed,
                 "RT4CHART_DATA_DIR": os.environ["RT4CHART_DATA_DIR"],
                 "RT4CHART_CACHE_DIR": str(tmp_path)}))
        outputs.append(out)
    assert all(p.wait(timeout=300) == 0 for p in procs)
    first = outputs[0].read_bytes()
    assert first.count(b"\n") == 689
    assert all(out.read_bytes() == first for out in outputs[1:])


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_lone_surrogate_is_that_records_error_and_every_other_row_is_written(tmp_path):
    rows = [{"id": "a", "context": "X is 1.", "answer": "X is 1."},
            {"id": "b\ud800", "context": "X is 1.", "answer": "X is \ud800 1."},
            {"id": "c", "context": "X is 1.", "answer": "X is 2."}]
    (tmp_path / "in.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = cli("predict", "--judge", "offline",
                 str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--quiet",
                 cache_dir=tmp_path)
    assert result.returncode == 1 and "1 of 3 records failed" in result.stderr
    lines = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in lines] == ["a", "b\ud800", "c"]  # the id is kept exactly (as a JSON escape)
    assert lines[1]["status"] == "error" and "lone surrogate U+D800" in lines[1]["error"]
    assert [lines[0]["status"], lines[2]["status"]] == ["faithful", "hallucinated"]


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_record_nested_too_deeply_to_read_is_that_records_error_on_every_engine(tmp_path):
    deep = '{"id": "deep", "context": "X is 1.", "answer": "X is 1.", "meta": ' + "[" * 100_000 + "]" * 100_000 + "}"
    lines = [json.dumps({"id": "a", "context": "X is 1.", "answer": "X is 1."}), deep,
             json.dumps({"id": "c", "context": "X is 1.", "answer": "X is 2."})]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n")
    outputs = []
    for engine in ("local", "dask"):
        out = tmp_path / f"{engine}.jsonl"
        result = cli("batch", "--judge", "offline",
                     str(tmp_path / "in.jsonl"), "-o", str(out), "--quiet", "--engine", engine,
                     "--no-store", cache_dir=tmp_path)
        assert result.returncode == 1 and "1 of 3 records failed" in result.stderr, result.stderr  # was exit 70
        outputs.append(out.read_bytes())
    written = [json.loads(x) for x in outputs[0].decode().splitlines()]
    assert [x["status"] for x in written] == ["faithful", "error", "hallucinated"]
    assert "nests JSON deeper than the reader can follow" in written[1]["error"]
    assert outputs[0] == outputs[1]


def test_zero_width_characters_are_ignored_for_matching_and_offsets_stay_exact():
    context = "The Eiffel Tower was completed in 1889 for the World's Fair."
    for answer in ("The Eif\u200bfel Tower was completed in 18\u200b89.", "The Eif\u00adfel Tower was completed in 1889.",
                   "\ufeffThe Eiffel\u2060 Tower was com\u200dpleted in 1889."):
        report = audit(context, answer)
        assert report.status == "faithful", (answer, [c.rationale for c in report.claims])
    wrong = audit(context, "The Eif\u200bfel Tower was completed in 18\u200b90.")
    assert wrong.status == "hallucinated"
    assert [wrong.answer[s.start:s.end] for s in wrong.spans] == ["18\u200b90"]


def test_unicode_line_breaks_inside_jsonl_strings_are_text_in_the_app_and_the_cli(tmp_path):
    rows = [{"id": "1", "context": "Line one\u2028line two\u0085end.", "answer": "A\u2029B"},
            {"id": "2", "context": "Plain.", "answer": "Plain."}]
    data = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode("utf-8")
    (tmp_path / "u.jsonl").write_bytes(data)
    from_file = [(r.id, r.context, r.answer) for r in read_records(str(tmp_path / "u.jsonl"))]
    from_upload = [(r["id"], r["context"], r["answer"]) for r in parse_rows(data, "u.jsonl")]
    assert from_file == from_upload == [(r["id"], r["context"], r["answer"]) for r in rows]


@pytest.mark.slow
def test_a_context_of_20_mb_audits(tmp_path):
    sentences = [f"Station {i} recorded {i % 97} millimetres of rain on day {i % 365}." for i in range(350_000)]
    context = " ".join(sentences)
    assert len(context) > 20_000_000
    report = audit(context, "Station 12 recorded 12 millimetres of rain on day 12. The Eiffel Tower opened in 1889.")
    assert report.coverage.context_sentences == 350_000
    assert [c.verdict.value for c in report.claims] == ["entailed", "baseless"]


@pytest.mark.slow
def test_a_sentence_free_answer_costs_about_what_the_same_text_costs_as_a_context():
    """Text work is linear: a 2 MB answer with no sentence end (one clause after another) was quadratic (the
    text before every word was copied to find a sentence start; every word was checked against every claim)."""
    import random

    rng = random.Random(1)
    words = "the river flows north past old mills and farms where cattle graze under tall oaks near".split()
    line = " ".join(rng.choice(words) for _ in range(370_000))
    assert len(line) > 2_000_000
    started = time.perf_counter()
    audit(line, "The river flows north past old mills.")
    as_context = time.perf_counter() - started
    started = time.perf_counter()
    report = audit("The river flows north. Old mills stand by it.", line)
    as_answer = time.perf_counter() - started
    assert len(report.claims) > 100 and report.status == "hallucinated"
    assert as_answer < 8 * as_context + 10, (as_answer, as_context)  # 9 s and 2 s here; the old code took ~60 s


@pytest.mark.slow
def test_a_second_batch_on_the_same_output_refuses_at_once_and_the_first_one_wins(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps({"id": f"r{i}", "context": "The gauge reads 7 units. " * 40,
                                            "answer": f"The gauge reads {i} units."}) for i in range(3000)))
    out = tmp_path / "out.jsonl"
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", ""), "RT4CHART_CACHE_DIR": str(tmp_path),
           "RT4CHART_DATA_DIR": os.environ["RT4CHART_DATA_DIR"]}  # was missing: the run landed in the user's store
    first = subprocess.Popen([sys.executable, "-m", "rt4chart", "batch", "--judge", "offline",
                              str(source), "-o", str(out), "--quiet",
                              "--no-cache"], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not Path(f"{out}.lock").exists() and time.time() < deadline:
        time.sleep(0.05)
    started = time.perf_counter()
    second = cli("batch", "--judge", "offline",
                 str(source), "-o", str(out), "--quiet", "--no-cache", cache_dir=tmp_path)
    assert time.perf_counter() - started < 10
    assert second.returncode == 2 and "being written by another rt4chart run" in second.stderr
    assert first.wait(timeout=300) == 0, first.stderr.read()
    lines = out.read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == [f"r{i}" for i in range(3000)]
    assert not Path(f"{out}.lock").exists() and not Path(f"{out}.partial").exists()


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_predict_piped_into_head_ends_quietly(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps({"id": f"r{i}", "context": "X is 1.", "answer": "X is 1."})
                                for i in range(2000)))
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", ""), "RT4CHART_CACHE_DIR": str(tmp_path)}
    for output in ("-", "/dev/stdout"):
        pipeline = subprocess.run(
            f"{sys.executable} -m rt4chart predict {source} -o {output} --quiet | head -n 2",
            shell=True, capture_output=True, text=True, env=env, timeout=120)
        assert pipeline.stdout.count("\n") == 2 and json.loads(pipeline.stdout.splitlines()[0])["id"] == "r0"
        assert pipeline.stderr == "", pipeline.stderr


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_stdout_output_is_the_same_bytes_as_a_file(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps({"id": f"r{i}", "context": "X is 1.", "answer": f"X is {i}."})
                                for i in range(5)))
    to_file = cli("predict", "--judge", "offline",
                  str(source), "-o", str(tmp_path / "o.jsonl"), "--quiet", cache_dir=tmp_path)
    to_stdout = cli("predict", "--judge", "offline", str(source), "-o", "-", "--quiet", cache_dir=tmp_path)
    assert to_file.returncode == to_stdout.returncode == 0
    assert to_stdout.stdout == (tmp_path / "o.jsonl").read_text()


def test_csv_and_jsonl_readers_agree_on_a_bom_and_crlf_file():
    data = '\ufeffid,context,answer\r\n"1","A ""quoted"" word.\r\nNext line.","Yes."\r\n'.encode("utf-8")
    rows = parse_rows(data, "x.csv")
    assert rows == [{"id": "1", "context": 'A "quoted" word.\r\nNext line.', "answer": "Yes."}]


def test_an_output_that_is_the_input_itself_is_refused_and_the_input_is_kept(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "1", "context": "The sky is blue.", "answer": "The sky is blue."}) + "\n")
    before = source.read_bytes()
    (tmp_path / "link.jsonl").symlink_to(source)
    for command in ("predict", "batch"):
        for target in (source, tmp_path / "link.jsonl"):
            assert main([command, str(source), "-o", str(target), "--quiet"]) == 2
    assert source.read_bytes() == before


@pytest.mark.parametrize("edit", ["same length", "truncated", "appended"])
def test_an_input_edited_in_place_during_the_run_is_refused_and_nothing_is_written(edit, tmp_path):
    from rt4chart.batch.run import run_batch
    from rt4chart.judges.factory import make_judge
    from rt4chart.store import Store

    source = tmp_path / "in.jsonl"
    rows = [json.dumps({"id": str(i), "context": "The sky is blue.", "answer": f"The sky is blue {i}."})
            for i in range(40)]
    source.write_text("\n".join(rows) + "\n")
    edited = {"same length": source.read_text().replace("blue", "gray"),  # only the digest can tell
              "truncated": "\n".join(rows[:30]) + "\n", "appended": "\n".join(rows + rows[:5]) + "\n"}[edit]

    def edit_midway(done, _total):
        if done == 20:
            source.write_text(edited)

    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    out = tmp_path / "out.jsonl"
    with pytest.raises(InputError, match="changed while it was audited|validation counted"):
        run_batch(str(source), str(out), make_judge("offline"), store=store, run_name="edited", progress=edit_midway)
    assert not out.exists() and store.get_run("edited").status == "failed"  # truncated/appended: left `running`


def test_json_ids_are_kept_as_written_and_a_key_given_twice_is_refused_with_its_line(tmp_path):
    source = tmp_path / "ids.jsonl"
    source.write_text('{"id": 1.10, "context": "The sky is blue.", "answer": "The sky is blue."}\n'
                      '{"id": 1e2, "context": "The sky is blue.", "answer": "The sky is blue."}\n'
                      '{"id": 7, "context": "The sky is blue.", "answer": "The sky is blue."}\n')
    assert [r.id for r in read_records(str(source))] == ["1.10", "1e2", "7"]  # were "1.1" and "100.0"
    twice = tmp_path / "twice.jsonl"
    twice.write_text('{"id": "a", "context": "x.", "answer": "y."}\n'
                     '{"id": "b", "context": "x.", "answer": "y.", "answer": "z."}\n')
    with pytest.raises(InputError, match="line 2: the key 'answer' appears twice"):
        read_records(str(twice))


def test_a_row_without_an_id_never_takes_the_id_a_later_row_gives(tmp_path):
    rows = [{"id": x, "context": "The sky is blue.", "answer": "The sky is blue."} for x in "abcde"]
    rows += [{"context": "The sky is blue.", "answer": "The sky is blue."},      # row 6: no id
             {"id": 6, "context": "The sky is blue.", "answer": "The sky is blue."},  # an explicit 6
             {"id": 6, "context": "The sky is blue.", "answer": "It is green."}]      # 6 again
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    records = read_records(str(source))
    assert [r.id for r in records][5:] == ["6#2", "6", "6#3"]  # the explicit 6 was renamed "6#2"
    assert [r.renamed_from for r in records][5:] == [None, None, "6"]
    assert [r.id for r in parse_rows_records(source)] == [r.id for r in records]  # the app's reader agrees
    from rt4chart.batch.partitions import plan_input, read_partition

    plan = plan_input(str(source), None, workers=2, size=3)  # the Dask engine's planner agrees
    assert [r.id for p in plan.partitions for _, r in read_partition(p, plan.roles)] == [r.id for r in records]


def parse_rows_records(source: Path):
    from rt4chart.data.records import records_from_rows

    rows = parse_rows(source.read_bytes(), source.name)
    return list(records_from_rows(rows, source=source.name))


def test_whitespace_cells_are_kept_as_written_and_json_nan_is_refused_with_its_line(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text('id,context,answer,question\n1,"   ","The sky is blue.", \n2,"  \t",  ,\n')
    records = read_records(str(source))
    assert [(r.context, r.answer, r.question) for r in records] == [("   ", "The sky is blue.", " "),
                                                                     ("  \t", "  ", None)]  # were "" and None
    assert [audit(r.context, r.answer).status for r in records] == ["hallucinated", "empty"]
    nan = tmp_path / "nan.jsonl"
    nan.write_text('{"id": "a", "context": "x.", "answer": "y."}\n{"id": "b", "context": NaN, "answer": "y."}\n')
    with pytest.raises(InputError, match="line 2: NaN is not JSON; write null for a missing value"):
        read_records(str(nan))  # was read as a missing (empty) context
    with pytest.raises(InputError, match="line 1: Infinity is not JSON"):
        parse_rows(b'{"id": "a", "context": Infinity, "answer": "y."}\n', "up.jsonl")


def test_a_parquet_binary_column_is_read_as_its_text(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "bin.parquet"
    pq.write_table(pa.table({"id": ["1", "2"], "context": [b"The sky is blue.", b"\xff\xfe broken"],
                             "answer": ["The sky is blue.", "The sky is blue."]}), path)
    records = read_records(str(path))
    assert records[0].context == "The sky is blue." and records[0].error is None  # was "b'The sky is blue.'"
    assert records[1].error is not None  # bytes that are no UTF-8 make that record fail, never the file


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_file_without_records_writes_an_empty_output_and_stores_no_run(tmp_path):
    (tmp_path / "empty.csv").write_text("id,context,answer\n")
    data = {"RT4CHART_DATA_DIR": str(tmp_path / "data")}
    result = cli("batch", "--judge", "offline",
                 str(tmp_path / "empty.csv"), "-o", str(tmp_path / "o.jsonl"), "--quiet", env_extra=data,
                 cache_dir=tmp_path)
    assert result.returncode == 0 and (tmp_path / "o.jsonl").read_bytes() == b""
    assert "has no records" in result.stderr and "no run was stored" in result.stderr
    listed = cli("runs", "list", env_extra=data, cache_dir=tmp_path)
    assert "no runs yet" in listed.stdout + listed.stderr  # a 0-row run was stored, and broke the app's Batch page


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_devices_and_links_into_dev_are_written_in_place_never_replaced(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "a", "context": "X is 1.", "answer": "X is 1."}) + "\n")
    quiet = cli("batch", "--judge", "offline",
                str(source), "-o", "/dev/null", "--quiet", "--no-store", cache_dir=tmp_path)
    assert quiet.returncode == 0 and quiet.stdout == ""  # was: the predictions printed to standard output
    assert not Path("/dev/null.partial").exists() and not Path("/dev/null.journal.sqlite3").exists()
    was_link = os.path.islink("/dev/stderr")
    errors = tmp_path / "err.txt"
    errors.write_text("earlier lines\n")
    with errors.open("a") as handle:
        env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "RT4CHART_DATA_DIR": os.environ["RT4CHART_DATA_DIR"], "RT4CHART_CACHE_DIR": str(tmp_path)}
        done = subprocess.run([sys.executable, "-m", "rt4chart", "batch", "--judge", "offline",
                               str(source), "-o", "/dev/stderr", "--quiet",
                               "--no-store"], stderr=handle, env=env, timeout=120)
    assert done.returncode == 0
    lines = errors.read_text().splitlines()
    assert lines[0] == "earlier lines" and json.loads(lines[1])["id"] == "a"  # appended, nothing lost
    assert os.path.islink("/dev/stderr") == was_link  # was: the link replaced by a regular file (as root)


@pytest.mark.slow  # over 1.8 s (measured): left out of make test-fast
def test_a_full_disk_for_the_output_is_one_line_and_a_resumed_run_is_byte_identical(tmp_path):
    """The disk-full row for the output and the journal: a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes
    writes fail with an OS error as a full disk does, without a real full disk."""
    import resource
    import signal

    rows = [{"id": str(i), "context": f"Item {i} weighs {i} kg. It is red.", "answer": f"Item {i} weighs {i % 7} kg."}
            for i in range(300)]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ("batch", "--judge", "offline", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--quiet",
            "--no-store")

    def small_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    full = cli(*args, cache_dir=tmp_path / "cache", preexec_fn=small_disk)
    assert full.returncode == 2, full.stderr  # one line naming the file, never a traceback
    assert "Traceback" not in full.stderr and len(full.stderr.strip().splitlines()) == 1
    assert "File too large" in full.stderr or "full" in full.stderr, full.stderr
    assert not (tmp_path / "o.jsonl").exists()  # no half-written output declared complete
    resumed = cli(*args, cache_dir=tmp_path / "cache")  # the same command again resumes
    assert resumed.returncode == 0, resumed.stderr
    fresh = cli("batch", "--judge", "offline",
                str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "fresh.jsonl"), "--quiet", "--no-store",
                cache_dir=tmp_path / "cache2")
    assert fresh.returncode == 0 and (tmp_path / "o.jsonl").read_bytes() == (tmp_path / "fresh.jsonl").read_bytes()
