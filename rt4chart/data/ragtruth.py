"""RAGTruth as it is downloaded: a folder with `response.jsonl` (one answer per line, its hallucination spans in
`labels`) and `source_info.jsonl` (the context of each `source_id`), or the `response.jsonl` path with
`source_info.jsonl` beside it. Each response becomes one record: its id, the source's context (a summary's
article, a QA item's passages, a data-to-text item's JSON), the answer, the QA question, the model, the task,
the split, and the gold label and spans, so `predict`, `batch` and `bench` take the files as they are."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator, Optional

from rt4chart.core.errors import InputError
from rt4chart.data.json_records import json_lines

RESPONSES, SOURCES = "response.jsonl", "source_info.jsonl"
FORMAT = "RAGTruth (response.jsonl + source_info.jsonl)"
COLUMNS = ["id", "context", "answer", "question", "model", "task", "split", "quality", "source_id", "hallucinated",
           "spans"]


def ragtruth_files(path: str) -> Optional[tuple[Path, Path]]:
    """(response.jsonl, source_info.jsonl) when `path` is RAGTruth's folder or its response.jsonl."""
    p = Path(path)
    folder = p if p.is_dir() else p.parent if p.name == RESPONSES else None
    if folder is None or not (folder / RESPONSES).is_file() or not (folder / SOURCES).is_file():
        return None
    return folder / RESPONSES, folder / SOURCES


def input_files(path: str) -> list[Path]:
    """The files an input reads (both RAGTruth files, or the one file)."""
    files = ragtruth_files(path)
    return list(files) if files else [Path(path)]


def _lines(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    yield from json_lines(text, str(path))


def _context(source: dict) -> tuple[str, Optional[str]]:
    """(context, question) of one source: a summary's text, a QA item's passages, a data-to-text item's JSON."""
    info = source.get("source_info")
    if isinstance(info, str):
        return info, None
    if isinstance(info, dict) and isinstance(info.get("passages"), str):
        return info["passages"], info.get("question")
    return json.dumps(info, ensure_ascii=False, indent=1), None


def sources_of(path: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for n, item in _lines(path):
        if "source_id" not in item:
            raise InputError(f"{path}: line {n}: no source_id")
        out[str(item["source_id"])] = item
    return out


def count(path: str) -> int:
    responses, _ = ragtruth_files(path) or (Path(path), None)
    return sum(1 for _ in _lines(responses))


def validate(path: str) -> int:
    """The number of responses; a response whose source_id is not in source_info.jsonl is refused with its line."""
    responses, sources_path = ragtruth_files(path)  # type: ignore[misc]
    sources = sources_of(sources_path)
    n_rows = 0
    for n, item in _lines(responses):
        if str(item.get("source_id")) not in sources:
            raise InputError(f"{responses}: line {n}: source_id {item.get('source_id')!r} is not in {sources_path}")
        if not isinstance(item.get("response"), str):
            raise InputError(f"{responses}: line {n}: no response text")
        n_rows += 1
    return n_rows


def rows(path: str) -> Iterator[dict]:
    """One record per response, in the file's order."""
    responses, sources_path = ragtruth_files(path)  # type: ignore[misc]
    sources = sources_of(sources_path)
    for _n, item in _lines(responses):
        source = sources[str(item["source_id"])]
        context, question = _context(source)
        labels = item.get("labels") or []
        yield {"id": str(item.get("id")), "context": context, "answer": item["response"], "question": question,
               "model": item.get("model"), "task": source.get("task_type"), "split": item.get("split"),
               "quality": item.get("quality"), "source_id": str(item["source_id"]),
               "hallucinated": bool(labels),
               "spans": [{"start": s.get("start"), "end": s.get("end"), "label": s.get("label_type"),
                          "implicit_true": bool(s.get("implicit_true"))} for s in labels]}
