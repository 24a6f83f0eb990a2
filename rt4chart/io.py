"""Reading inputs (text files, JSONL/CSV records) with clear errors, and writing predictions."""
from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from .types import AuditReport


class InputError(ValueError):
    """Bad input, with a message that says what is wrong and what to do."""


def decode_bytes(data: bytes, name: str) -> str:
    """UTF-8 (with or without BOM); anything else is an error naming the likely encoding."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        guess = None
        try:
            from charset_normalizer import from_bytes

            best = from_bytes(data[:200_000]).best()
            guess = best.encoding if best else None
        except ImportError:  # pragma: no cover - charset_normalizer ships with requests/openai installs
            pass
        hint = f" It looks like {guess}; convert it with: iconv -f {guess} -t utf-8 {name}" if guess else ""
        raise InputError(f"{name} is not valid UTF-8 (byte {exc.start}).{hint}") from None


def read_text(path: str) -> str:
    """A whole text file, or standard input for '-'."""
    if path == "-":
        return decode_bytes(sys.stdin.buffer.read(), "standard input")
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: no such file")
    return decode_bytes(p.read_bytes(), path)


@dataclass
class Record:
    """One row to audit."""

    id: str
    context: str
    answer: str
    question: Optional[str] = None
    extra: dict = field(default_factory=dict)


CONTEXT_NAMES = ("context", "contexts", "source", "document", "passage", "passages", "retrieved_context",
                 "reference", "knowledge")
ANSWER_NAMES = ("answer", "response", "output", "generation", "summary", "prediction", "completion")
QUESTION_NAMES = ("question", "query", "prompt", "input", "user_input")
ID_NAMES = ("id", "row_id", "uid", "example_id", "sample_id")


def detect_columns(columns: list[str]) -> dict[str, Optional[str]]:
    """Map the roles context/answer/question/id to column names, by common spellings."""
    lowered = {c.strip().lower(): c for c in columns}

    def pick(names):
        for n in names:
            if n in lowered:
                return lowered[n]
        return None

    return {"context": pick(CONTEXT_NAMES), "answer": pick(ANSWER_NAMES), "question": pick(QUESTION_NAMES),
            "id": pick(ID_NAMES)}


def _question_of(row: dict, column: Optional[str]) -> Optional[str]:
    if column and row.get(column) not in (None, ""):
        return str(row[column])
    meta = row.get("meta")
    if isinstance(meta, dict) and meta.get("question"):
        return str(meta["question"])
    return None


def records_from_rows(rows: list[dict], mapping: Optional[dict] = None, source: str = "input") -> Iterator[Record]:
    """Records from dict rows with a role -> column mapping (auto-detected when not given)."""
    if not rows:
        return
    columns = list(rows[0].keys())
    roles = detect_columns(columns)
    roles.update({k: v for k, v in (mapping or {}).items() if v})
    missing = [r for r in ("context", "answer") if not roles.get(r) or roles[r] not in columns]
    if missing:
        raise InputError(f"{source}: no column for {' and '.join(missing)}. Columns found: "
                         f"{', '.join(map(str, columns))}. Needed: a context column (one of "
                         f"{', '.join(CONTEXT_NAMES[:4])}...) and an answer column (one of "
                         f"{', '.join(ANSWER_NAMES[:4])}...), or map them explicitly.")
    for n, row in enumerate(rows, 1):
        rid = row.get(roles["id"]) if roles.get("id") else None
        context, answer = row.get(roles["context"]), row.get(roles["answer"])
        yield Record(id=str(rid) if rid not in (None, "") else str(n), context="" if context is None else str(context),
                     answer="" if answer is None else str(answer), question=_question_of(row, roles.get("question")),
                     extra={k: v for k, v in row.items() if k not in (roles["context"], roles["answer"])})


def parse_jsonl(text: str, source: str) -> list[dict]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{source}:{n}: not valid JSON ({exc.msg}); each line must be one JSON object") from None
        if not isinstance(obj, dict):
            raise InputError(f"{source}:{n}: expected a JSON object, got {type(obj).__name__}")
        rows.append(obj)
    return rows


def parse_csv(text: str, source: str) -> list[dict]:
    sample = text[:20_000]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    csv.field_size_limit(sys.maxsize)
    reader = csv.DictReader(io.StringIO(text), dialect=dialect)
    if not reader.fieldnames:
        raise InputError(f"{source}: the CSV file is empty (no header row)")
    return [row for row in reader if any((v or "").strip() for v in row.values() if isinstance(v, str))]


def read_records(path: str, mapping: Optional[dict] = None) -> list[Record]:
    """Records of a .jsonl/.json or .csv/.tsv file."""
    text = read_text(path)
    if not text.strip():
        raise InputError(f"{path}: the file is empty")
    suffix = Path(path).suffix.lower()
    rows = parse_csv(text, path) if suffix in (".csv", ".tsv", ".txt") else parse_jsonl(text, path)
    return list(records_from_rows(rows, mapping, path))


def prediction(record_id: str, report: AuditReport) -> dict:
    """One line of `rt4chart predict` output (the benchmark prediction format plus claims)."""
    return {
        "id": record_id,
        "hallucinated": report.hallucinated,
        "status": report.status,
        "spans": [{"start": s.start, "end": s.end} for s in report.spans],
        "claims": [{"text": c.claim.text, "verdict": c.verdict.value,
                    "spans": [{"start": s.start, "end": s.end} for s in c.claim.spans],
                    "hallucinated_spans": [{"start": s.start, "end": s.end} for s in c.hallucinated_spans],
                    "evidence": [{"sentence_index": e.sentence_index, "start": e.start, "end": e.end,
                                  "relation": e.relation, "text": e.text} for e in c.evidence]}
                   for c in report.claims],
        "coverage": report.coverage.model_dump(),
    }
