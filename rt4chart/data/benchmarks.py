"""Public benchmarks as people download them, so `predict`, `batch` and `bench` take the files as they are:

* HaluEval (RUCAIBox/HaluEval `data/qa_data.json`, `dialogue_data.json`, `summarization_data.json`: one JSON
  object per line with the knowledge or document, the question or dialogue history, a right and a
  hallucinated answer). Each line gives two records, `<line>-right` (gold: faithful) and `<line>-hallucinated`
  (gold: hallucinated), in that order.
* FaithBench (vectara/FaithBench `data_for_release/batch_N.json`: `{"samples": [...]}` with each summary's
  human span annotations). Gold as the authors' evaluation reads it: the worst label of any annotator;
  `hallucinated` when it is Unwanted or Questionable (their released setting), `hallucinated_strict` when it
  is Unwanted; no annotation is consistent. The spans are the Unwanted and Questionable spans, merged.
(RAGTruth's folder has its own reader: rt4chart.data.ragtruth.)"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from rt4chart.core.errors import InputError
from rt4chart.data.json_records import json_document, json_lines, parse_json

HALUEVAL_FORMAT = "HaluEval (a right and a hallucinated answer per line: two records each)"
FAITHBENCH_FORMAT = "FaithBench batch (summaries with human span annotations)"
HALUEVAL_COLUMNS = ["id", "context", "answer", "question", "dialogue_history", "task", "hallucinated", "pair"]
FAITHBENCH_COLUMNS = ["id", "context", "answer", "model", "hallucinated", "hallucinated_strict", "worst_label",
                      "spans", "sample_id", "batch"]
# task -> (context field, question field, right answer field, hallucinated answer field)
HALUEVAL_TASKS = {"qa": ("knowledge", "question", "right_answer", "hallucinated_answer"),
                  "dialogue": ("knowledge", "dialogue_history", "right_response", "hallucinated_response"),
                  "summarization": ("document", None, "right_summary", "hallucinated_summary")}
SEVERITY = {"Benign": 1, "Questionable": 2, "Unwanted": 3, "Unwanted.Intrinsic": 3, "Unwanted.Extrinsic": 3}


def halueval_task(keys) -> Optional[str]:
    names = set(keys)
    return next((task for task, (context, _q, right, wrong) in HALUEVAL_TASKS.items()
                 if {context, right, wrong} <= names), None)


def _first_object(head: bytes) -> Optional[dict]:
    line = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n").split("\n", 1)[0]
    try:
        item = parse_json(line)
    except (ValueError, RecursionError):  # not this format's first line: another reader says what it is
        return None
    return item if isinstance(item, dict) else None


def sniff_head(head: bytes, name: str) -> Optional[str]:
    if Path(name).suffix.lower() not in (".json", ".jsonl", ".ndjson"):
        return None
    first = _first_object(head)
    if first is not None and halueval_task(first):
        return HALUEVAL_FORMAT
    text = head[:65536].decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text[:1] in "{[" and all(f'"{k}"' in text for k in ("sample_id", "source", "summary", "annotations")):
        return FAITHBENCH_FORMAT
    return None


def sniff(path: str) -> Optional[str]:
    p = Path(path)
    if not p.is_file():
        return None
    with p.open("rb") as handle:
        return sniff_head(handle.read(65536), path)


def halueval_records(text: str, where: str) -> list[dict]:
    out: list[dict] = []
    for n, item in json_lines(text, where):
        task = halueval_task(item)
        if task is None:
            raise InputError(f"{where}: line {n}: not a HaluEval record like the first (it needs "
                             f"{', '.join(f for f in HALUEVAL_TASKS['qa'] if f)} or the dialogue/summarization fields)")
        context_key, question_key, right_key, wrong_key = HALUEVAL_TASKS[task]
        for key in (context_key, right_key, wrong_key):
            if not isinstance(item.get(key), str):
                raise InputError(f"{where}: line {n}: {key} is not text")
        base = {"context": item[context_key], "task": task, "pair": str(n)}
        if task == "qa":
            base["question"] = item.get(question_key)
        elif task == "dialogue":
            base["question"] = base["dialogue_history"] = item.get(question_key)
        for variant, key, gold in (("right", right_key, False), ("hallucinated", wrong_key, True)):
            out.append({"id": f"{n}-{variant}", **base, "answer": item[key], "hallucinated": gold})
    return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def faithbench_record(sample: dict, batch: Optional[str], where: str) -> dict:
    for key in ("source", "summary"):
        if not isinstance(sample.get(key), str):
            raise InputError(f"{where}: sample {sample.get('sample_id')!r}: {key} is not text")
    worst = 0
    by_class: dict[str, list[tuple[int, int]]] = {"Unwanted": [], "Questionable": []}
    for annotation in sample.get("annotations") or []:
        labels = [label for label in annotation.get("label") or [] if label in SEVERITY]
        if not labels:
            continue
        severity = max(SEVERITY[label] for label in labels)
        worst = max(worst, severity)
        start, end = annotation.get("summary_start"), annotation.get("summary_end")
        if severity >= 2 and isinstance(start, int) and isinstance(end, int) and 0 <= start < end:
            by_class["Unwanted" if severity == 3 else "Questionable"].append((start, end))
    spans = [{"start": s, "end": e, "label": label} for label, found in by_class.items() for s, e in _merged(found)]
    meta = sample.get("metadata") or {}
    sample_id = sample.get("sample_id")
    return {"id": f"faithbench-{batch}-{sample_id}" if batch else f"faithbench-{sample_id}",
            "context": sample["source"], "answer": sample["summary"],
            "model": meta.get("summarizer") or sample.get("meta_model"), "hallucinated": worst >= 2,
            "hallucinated_strict": worst == 3,
            "worst_label": {0: "Consistent", 1: "Benign", 2: "Questionable", 3: "Unwanted"}[worst], "spans": spans,
            "sample_id": sample_id, "batch": batch}


def faithbench_records(text: str, where: str) -> list[dict]:
    data = json_document(text, where)
    samples = data.get("samples") if isinstance(data, dict) else data
    if not isinstance(samples, list) or not all(isinstance(s, dict) for s in samples):
        raise InputError(f"{where}: a FaithBench batch is {{\"samples\": [...]}} or a list of samples")
    found = re.search(r"batch_(\d+)", Path(where).name)
    return [faithbench_record(s, found.group(1) if found else None, where) for s in samples]


def read_text(text: str, fmt: str, where: str) -> tuple[list[str], list[dict]]:
    if fmt == HALUEVAL_FORMAT:
        return HALUEVAL_COLUMNS, halueval_records(text, where)
    return FAITHBENCH_COLUMNS, faithbench_records(text, where)


def read(path: str, fmt: str) -> tuple[list[str], list[dict]]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return read_text(text, fmt, path)
