"""Claim precision: of the claims a judge flags in span-annotated answers, the share whose span touches a human
span; entailed claims and answers without span annotation do not count."""
from __future__ import annotations

from rt4chart.evaluation.metrics import score

ANSWER = "The bridge opened in 1998. It is 900 metres long. Tolls are free."


def _claim(verdict: str, start: int, end: int) -> dict:
    return {"verdict": verdict, "spans": [{"start": start, "end": end}]}


def test_flagged_claims_touching_a_gold_span_over_all_flagged_claims():
    gold = [{"id": "a", "answer": ANSWER, "hallucinated": True, "span_annotated": True,
             "spans": [{"start": 33, "end": 43, "label": "Evident Conflict"}]},
            {"id": "b", "answer": ANSWER, "hallucinated": False, "span_annotated": False, "spans": []}]
    preds = {"a": {"hallucinated": True, "spans": [], "claims": [
        _claim("entailed", 0, 26), _claim("contradicted", 27, 49), _claim("baseless", 50, 65)]},
        "b": {"hallucinated": True, "spans": [], "claims": [_claim("baseless", 0, 26)]}}  # not span-annotated
    s = score(gold, preds)
    assert (s.claims_flagged, s.claims_flagged_in_gold) == (2, 1)
    assert s.claim_precision == 0.5 and s.as_dict()["claims"]["precision"] == 0.5


def test_no_flagged_claim_gives_no_precision():
    gold = [{"id": "a", "answer": ANSWER, "hallucinated": False, "span_annotated": True, "spans": []}]
    assert score(gold, {"a": {"hallucinated": False, "claims": [_claim("entailed", 0, 26)]}}).claim_precision is None


def test_judge_disagreements_count_the_claims_each_judge_flags_alone(tmp_path):
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from judge_disagreements import table

    gold = [{"id": "a", "answer": ANSWER, "hallucinated": True, "span_annotated": True,
             "spans": [{"start": 33, "end": 43, "label": "Evident Conflict"}]},
            {"id": "q", "answer": "Paris", "hallucinated": True, "span_annotated": False, "spans": []}]
    first = [{"id": "a", "claims": [_claim("entailed", 0, 26), _claim("contradicted", 27, 49), _claim("baseless", 50, 65)]},
             {"id": "q", "claims": [_claim("entailed", 0, 5)]}]
    second = [{"id": "a", "claims": [_claim("baseless", 0, 26), _claim("entailed", 27, 49), _claim("baseless", 50, 65)]},
              {"id": "q", "claims": [_claim("baseless", 0, 5)]}]
    paths = []
    for name, lines in (("gold", gold), ("one", first), ("two", second)):
        paths.append(tmp_path / f"{name}.jsonl")
        paths[-1].write_text("".join(json.dumps(x) + "\n" for x in lines))
    rows = table(*map(str, paths), "one", "two").splitlines()
    assert "| every labelled claim (the base rate) | 4 | 2 | 0.500 |" in rows
    assert "| both flag it | 1 | 0 | 0.000 |" in rows          # "Tolls are free." touches no gold span
    assert "| only one flags it | 1 | 1 | 1.000 |" in rows     # the contradiction on the gold span
    assert "| only two flags it | 2 | 1 | 0.500 |" in rows     # a one-claim answer takes the answer's label
    assert "| neither flags it | 0 | 0 | – |" in rows


def test_a_claim_touches_a_gold_span_that_counts_by_overlap_not_by_adjacency():
    from rt4chart.evaluation.metrics import touches_gold_span

    conflict, benign = {"start": 33, "end": 43, "label": "Evident Conflict"}, {"start": 0, "end": 26, "label": "Benign"}
    assert touches_gold_span([(27, 49)], [conflict])
    assert not touches_gold_span([(43, 49)], [conflict])  # ends are exclusive: a claim right after it
    assert not touches_gold_span([(0, 26)], [benign])     # a benign span is no hallucination (lenient)
    assert not touches_gold_span([(27, 49)], [{**conflict, "counts_in": ["strict"]}])
    assert touches_gold_span([(27, 49)], [{**conflict, "counts_in": ["strict"]}], setting="strict")
