"""Batch audits on a real dask.distributed cluster on 127.0.0.1 (a scheduler and two worker processes)."""
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from rt4chart.batch.run import run_batch  # noqa: E402
from rt4chart.judges.factory import make_judge  # noqa: E402

from .fakes import wait_for_journal_rows  # noqa: E402
from .loopback import free_port

pytestmark = pytest.mark.slow  # a real Dask cluster on loopback

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cluster(tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), RT4CHART_CACHE_DIR=str(tmp_path / "cache"))
    address = f"tcp://127.0.0.1:{port}"
    logs = tmp_path / "logs"
    logs.mkdir()
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], env=env,
                              stdout=(logs / "scheduler.out").open("w"), stderr=subprocess.STDOUT)]
    workers = []
    for name in ("w1", "w2"):
        workers.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                         "--no-nanny", "--no-dashboard", "--host", "127.0.0.1", "--name", name],
                                        env=env, stdout=(logs / f"{name}.out").open("w"), stderr=subprocess.STDOUT))
    procs += workers
    try:
        with distributed.Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()


def write_rows(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            context = " ".join(f"Fact {k}: the gauge reads {i + k} units." for k in range(12))
            f.write(json.dumps({"id": f"r{i}", "context": context,
                                "answer": f"The gauge reads {i} units. It was built in {1900 + i}."}) + "\n")


def local_reference(source: Path, tmp_path: Path) -> str:
    out = tmp_path / "local.jsonl"
    run_batch(str(source), str(out), make_judge("offline"))
    return out.read_text()


def test_the_dask_engine_gives_the_same_output_as_the_local_engine(cluster, tmp_path):
    address, _ = cluster
    source = tmp_path / "in.jsonl"
    write_rows(source, 300)
    out = tmp_path / "dask.jsonl"
    summary = run_batch(str(source), str(out), make_judge("offline"), engine="dask", dask_address=address,
                        partition_rows=40)
    assert summary.rows == 300 and summary.failed == 0
    assert out.read_text() == local_reference(source, tmp_path)


def test_killing_a_worker_mid_run_still_gives_the_complete_identical_output(cluster, tmp_path):
    address, workers = cluster
    source = tmp_path / "in.jsonl"
    write_rows(source, 2500)
    out = tmp_path / "dask.jsonl"
    journal = tmp_path / "journal.sqlite3"
    result = {}

    def run():
        result["summary"] = run_batch(str(source), str(out), make_judge("offline"), engine="dask",
                                      dask_address=address, partition_rows=50, journal_path=str(journal))
    thread = threading.Thread(target=run)
    thread.start()
    killed = wait_for_journal_rows(journal, 200, thread.is_alive)
    if killed:
        workers[0].send_signal(signal.SIGKILL)
    assert killed, "the run ended before a worker could be killed"
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert result["summary"].rows == 2500
    assert out.read_text() == local_reference(source, tmp_path)


def test_the_openai_judge_runs_on_workers_and_the_key_is_never_logged_or_written(cluster, tmp_path):
    from .fault_server import FaultServer

    address, _ = cluster
    secret = "sk-dask-test-SECRET-9876"
    server = FaultServer(rate=0.0).start()
    try:
        source = tmp_path / "in.jsonl"
        write_rows(source, 30)
        judge = make_judge("openai", base_url=server.url, api_key=secret, model="m", use_cache=True)
        out = tmp_path / "dask.jsonl"
        summary = run_batch(str(source), str(out), judge, engine="dask", dask_address=address, partition_rows=10,
                            journal_path=str(tmp_path / "journal.sqlite3"))
        assert summary.rows == 30 and summary.failed == 0
        lines = [json.loads(x) for x in out.read_text().splitlines()]
        assert all(x["status"] == "faithful" and x["coverage"]["judge_calls"] >= 3 for x in lines)
        assert server.stats["requests"] >= 90
    finally:
        server.stop()
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name.endswith(".out") for p in written) and any("memo.sqlite3" in p.name for p in written)
    for path in written:
        assert secret.encode() not in path.read_bytes(), path


DEV = ROOT.parent / "shared" / "benchmarks" / "ragtruth_dev.jsonl"


@pytest.mark.skipif(not DEV.exists(), reason="needs ../shared/benchmarks")
def test_the_dask_engine_equals_the_local_engine_line_for_line_on_a_dev_file(cluster, tmp_path):
    """Workers are other processes with other hash seeds: the output must not depend on them."""
    address, _ = cluster
    local, distributed_out = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    run_batch(str(DEV), str(local), make_judge("offline"))
    run_batch(str(DEV), str(distributed_out), make_judge("offline"), engine="dask", dask_address=address,
              partition_rows=50)
    assert distributed_out.read_bytes() == local.read_bytes()
    assert local.read_text().count("\n") == 689


def tricky_jsonl(path: Path) -> None:
    """Repeated ids (one colliding with a made-up '#2'), a missing id, blank lines, a BOM, U+2028 in text."""
    rows = [{"id": "a", "context": "The gauge reads 7 units.", "answer": "The gauge reads 7 units."},
            {"id": "a", "context": "The gauge reads 7 units.", "answer": "The gauge reads 8 units."},
            {"id": "a#2", "context": "Line\u2028break.", "answer": "Line break."},
            {"context": "No id here.", "answer": "No id."},
            {"id": 5, "context": "Numbers as ids.", "answer": "Numbers."}] * 40
    body = "\n\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
    path.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8") + b"\n\n")


def test_workers_reading_their_own_partitions_build_exactly_the_local_records(tmp_path):
    from rt4chart.batch.partitions import plan_input, read_partition
    from rt4chart.data.records import iter_records

    source = tmp_path / "in.jsonl"
    tricky_jsonl(source)
    local = [(r.id, r.row, r.context, r.answer, r.renamed_from) for r in iter_records(str(source))]
    plan = plan_input(str(source), None, workers=3, size=7)
    assert plan.count == len(local) == 200 and len(plan.partitions) == 29
    planned = [(r.id, r.row, r.context, r.answer, r.renamed_from) for p in plan.partitions
               for _, r in read_partition(p, plan.roles)]
    assert planned == local
    assert plan.renamed[:4] == ["a", "a", "a", "a#2"]  # the first explicit "a#2" is kept: the suffixes avoid it


def test_the_planned_dask_engine_equals_the_local_engine_on_tricky_input(cluster, tmp_path):
    address, _ = cluster
    source = tmp_path / "in.jsonl"
    tricky_jsonl(source)
    local, distributed_out = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    reference = run_batch(str(source), str(local), make_judge("offline"))
    summary = run_batch(str(source), str(distributed_out), make_judge("offline"), engine="dask",
                        dask_address=address, partition_rows=13)
    assert distributed_out.read_bytes() == local.read_bytes() and summary.rows == 200
    ids = [json.loads(x)["id"] for x in local.read_text().split("\n") if x]  # not splitlines(): U+2028
    assert len(set(ids)) == 200 and summary.renamed_ids == reference.renamed_ids


def test_parquet_partitions_are_read_by_row_groups_and_equal_the_local_engine(cluster, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    address, _ = cluster
    rows = [{"id": f"p{i % 37}", "context": f"The gauge reads {i} units.", "answer": f"The gauge reads {i % 5} units."}
            for i in range(120)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "in.parquet", row_group_size=17)
    local, distributed_out = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    run_batch(str(tmp_path / "in.parquet"), str(local), make_judge("offline"))
    run_batch(str(tmp_path / "in.parquet"), str(distributed_out), make_judge("offline"), engine="dask",
              dask_address=address, partition_rows=30)
    assert distributed_out.read_bytes() == local.read_bytes()


def test_local_workers_are_processes_for_the_offline_judge_and_change_nothing(tmp_path):
    source = tmp_path / "in.jsonl"
    write_rows(source, 120)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    run_batch(str(source), str(one), make_judge("offline"))
    run_batch(str(source), str(two), make_judge("offline"), workers=2)
    assert two.read_bytes() == one.read_bytes()


def _count_verifier_loads() -> None:
    """On a Dask worker: count every verifier checkpoint this process builds from now on."""
    from rt4chart.judges.model.checkpoint import Checkpoint

    if not hasattr(Checkpoint, "loads_counted"):
        build = Checkpoint.__init__

        def counted(self, *args, **kwargs):
            Checkpoint.loads_counted.append(kwargs.get("threads"))
            build(self, *args, **kwargs)
        Checkpoint.__init__ = counted
    Checkpoint.loads_counted = []


def _verifier_loads() -> list:
    """The inference threads of each verifier checkpoint this worker built since `_count_verifier_loads`."""
    from rt4chart.judges.model.checkpoint import Checkpoint

    return Checkpoint.loads_counted


@pytest.mark.parametrize("kind", ["hybrid", "model"])
def test_the_model_judges_give_on_dask_the_local_output_and_load_the_verifier_once_per_worker(cluster, tmp_path,
                                                                                                kind):
    """#37 item 4: the shipped verifier read on Dask workers gives byte for byte the local engine's report, and a
    worker builds its judge, and so its ONNX session, once for all the partitions it audits, with as many
    inference threads as Dask gives the worker task threads (one here), not every core of the machine."""
    address, _ = cluster
    with distributed.Client(address, timeout="60s") as client:
        client.run(_count_verifier_loads)
    sample = ROOT / "sample_data" / "rag_audit_sample.csv"
    local, on_dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    run_batch(str(sample), str(local), make_judge(kind))
    summary = run_batch(str(sample), str(on_dask), make_judge(kind), engine="dask", dask_address=address,
                        partition_rows=2)
    assert summary.rows == 20 and summary.failed == summary.unverified == 0
    assert on_dask.read_bytes() == local.read_bytes()
    with distributed.Client(address, timeout="60s") as client:
        loads = client.run(_verifier_loads)
    assert max(len(v) for v in loads.values()) == 1, loads  # ten partitions on two workers: one verifier a worker
    assert {threads for v in loads.values() for threads in v} == {1}, loads


def test_a_csv_batch_on_dask_is_stored_whole_in_the_run_store(cluster, tmp_path):
    """CSV rows are read by the driver and shipped; the workers must still store every one of them."""
    from rt4chart.store import Store

    address, _ = cluster
    store = Store(f"sqlite:///{tmp_path / 'runs.sqlite3'}")
    sample = ROOT / "sample_data" / "rag_audit_sample.csv"
    summary = run_batch(str(sample), str(tmp_path / "out.jsonl"), make_judge("offline"), engine="dask",
                        dask_address=address, store=store, run_name="csv-dask", partition_rows=7)
    run = store.get_run(summary.run_id)
    assert run.rows == summary.rows == 20 and len(store.stored_positions(run.id)) == 20
    assert [r["id"] for r in store.results(run.id)] == [json.loads(x)["id"] for x in
                                                        (tmp_path / "out.jsonl").read_text().splitlines()]
