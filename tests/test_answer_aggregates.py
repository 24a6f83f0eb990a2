"""benchmarks/answer_aggregates.py reads saved predictions and ranks answers by other ways of making an answer's
score from its claims' scores; its 'shipped' row is the judge's own answer score, so its AUROC is the bench's."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "answer_aggregates.py"


def _module():
    spec = importlib.util.spec_from_file_location("answer_aggregates", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files(tmp_path: Path, rows: list[tuple[str, bool, float, list[float]]]) -> tuple[Path, Path]:
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    gold.write_text("".join(json.dumps({"id": i, "hallucinated": h}) + "\n" for i, h, _, _ in rows))
    pred.write_text("".join(json.dumps({"id": i, "score": s, "hallucinated": s >= 0.5,
                                        "claims": [{"score": c} for c in claims]}) + "\n"
                            for i, _, s, claims in rows))
    return pred, gold


def test_the_shipped_row_ranks_by_the_answer_score_and_the_others_by_their_claims(tmp_path):
    # the answer score ranks the two perfectly; the maximum claim score ranks them the wrong way round
    pred, gold = _files(tmp_path, [("a", True, 0.7, [0.55, 0.2]), ("b", False, 0.3, [0.6])])
    out = subprocess.run([sys.executable, str(SCRIPT), str(pred), str(gold)], capture_output=True, text=True,
                         check=True).stdout
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in out.splitlines()[2:]}
    assert rows["shipped (noisy-OR)"] == "1.0000"
    assert rows["maximum"] == "0.0000"


def test_the_best_threshold_is_searched_over_every_score():
    best_ba = _module().best_ba
    assert best_ba([(0.9, True), (0.2, False), (0.6, True), (0.7, False)]) == 0.75
    assert best_ba([(0.9, True), (0.1, False)]) == 1.0


def test_predictions_that_miss_gold_rows_are_refused(tmp_path):
    pred, gold = _files(tmp_path, [("a", True, 0.7, [0.7])])
    gold.write_text(gold.read_text() + json.dumps({"id": "z", "hallucinated": False}) + "\n")
    done = subprocess.run([sys.executable, str(SCRIPT), str(pred), str(gold)], capture_output=True, text=True)
    assert done.returncode != 0 and "no prediction for 1 gold rows (first: z)" in done.stderr
