"""Reading inputs (text files, JSONL/CSV records) with clear errors, and writing predictions."""
from __future__ import annotations

import csv
import io
import itertools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Optional

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
    renamed_from: Optional[str] = None  # set when a repeated id was made unique


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


_MISSING = {"nan", "NaN", "NULL", "null", "None"}


def _cell(value) -> Optional[str]:
    """A cell as text; empty, NaN (pandas) and NULL (SQL) exports mean missing."""
    if value is None:
        return None
    if isinstance(value, float) and value != value:
        return None
    text = value if isinstance(value, str) else (json.dumps(value) if isinstance(value, (dict, list)) else str(value))
    return None if text.strip() in _MISSING or not text.strip() else text


def _question_of(row: dict, column: Optional[str]) -> Optional[str]:
    if column and _cell(row.get(column)):
        return _cell(row[column])
    meta = row.get("meta")
    if isinstance(meta, dict) and _cell(meta.get("question")):
        return _cell(meta["question"])
    return None


def records_from_rows(rows: Iterable[dict], mapping: Optional[dict] = None, source: str = "input") -> Iterator[Record]:
    """Records from dict rows (consumed lazily) with a role -> column mapping (auto-detected when not given).

    Ids come from the id column, else the row number; a repeated id gets a '#n' suffix so no row is
    lost or merged (`Record.renamed_from` keeps the original)."""
    iterator = iter(rows)
    first = next(iterator, None)
    if first is None:
        return
    columns = list(first.keys())
    roles = detect_columns(columns)
    roles.update({k: v for k, v in (mapping or {}).items() if v})
    missing = [r for r in ("context", "answer") if not roles.get(r) or roles[r] not in columns]
    if missing:
        raise InputError(f"{source}: no column for {' and '.join(missing)}. Columns found: "
                         f"{', '.join(map(str, columns)) or '(none)'}. Needed: a context column (one of "
                         f"{', '.join(CONTEXT_NAMES[:4])}...) and an answer column (one of "
                         f"{', '.join(ANSWER_NAMES[:4])}...), or map them explicitly.")
    seen: dict[str, int] = {}
    for n, row in enumerate(itertools.chain([first], iterator), 1):
        rid = _cell(row.get(roles["id"])) if roles.get("id") else None
        rid = rid if rid is not None else str(n)
        original = None
        if rid in seen:
            seen[rid] += 1
            original, rid = rid, f"{rid}#{seen[rid]}"
        else:
            seen[rid] = 1
        yield Record(id=rid, renamed_from=original, context=_cell(row.get(roles["context"])) or "", answer=_cell(row.get(roles["answer"])) or "",
                     question=_question_of(row, roles.get("question")),
                     extra={k: v for k, v in row.items() if k not in (roles["context"], roles["answer"])})


def _json_row(line: str, source: str, n: int) -> Optional[dict]:
    if not line.strip():
        return None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}:{n}: not valid JSON ({exc.msg}); each line must be one JSON object") from None
    if not isinstance(obj, dict):
        raise InputError(f"{source}:{n}: expected a JSON object, got {type(obj).__name__}")
    return obj


def parse_jsonl(text: str, source: str) -> list[dict]:
    return [row for n, line in enumerate(text.splitlines(), 1) if (row := _json_row(line, source, n)) is not None]


def _dialect(sample: str):
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        return csv.excel


def _csv_rows(handle, sample: str, source: str) -> Iterator[dict]:
    csv.field_size_limit(sys.maxsize)
    reader = csv.DictReader(handle, dialect=_dialect(sample))
    if not reader.fieldnames:
        raise InputError(f"{source}: the CSV file is empty (no header row)")
    for row in reader:
        if any((v or "").strip() for v in row.values() if isinstance(v, str)):
            yield row


def parse_csv(text: str, source: str) -> list[dict]:
    return list(_csv_rows(io.StringIO(text), text[:65_536], source))


def _is_csv(path: str) -> bool:
    return Path(path).suffix.lower() in (".csv", ".tsv", ".txt")


def _sample_text(head: bytes, path: str) -> str:
    """The first bytes as text (a character cut at the end is dropped); non-UTF-8 raises early."""
    for cut in range(4):
        try:
            return head[:len(head) - cut].decode("utf-8-sig")
        except UnicodeDecodeError:
            continue
    return decode_bytes(head, path)  # raises the error that names the likely encoding


def _parquet_rows(path: str) -> Iterator[dict]:
    """Rows of a Parquet file, streamed batch by batch (needs pyarrow, which the app extra brings)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow)") from None
    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for a file that is not Parquet
        raise InputError(f"{path}: not a readable Parquet file ({type(exc).__name__})") from None
    for batch in parquet.iter_batches(batch_size=1024):
        yield from batch.to_pylist()


def check_head(head: bytes, name: str) -> None:
    """Refuse an empty or binary file from its first bytes, with a message that says so."""
    if not head.strip():
        raise InputError(f"{name}: the file is empty")
    if b"\x00" in head[:65_536]:
        raise InputError(f"{name}: looks like a binary file (NUL bytes); expected CSV or JSONL text")


def parse_rows(data: bytes, name: str) -> list[dict]:
    """Rows of a whole CSV/TSV or JSONL file held in memory (e.g. an upload), chosen by its suffix."""
    check_head(data, name)
    text = decode_bytes(data, name)
    suffix = Path(name).suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return parse_jsonl(text, name)
    if suffix in (".csv", ".tsv", ".txt"):
        return parse_csv(text, name)
    raise InputError(f"{name}: unsupported file type {suffix or '(none)'}; use .csv, .tsv or .jsonl")


def iter_rows(path: str) -> Iterator[dict]:
    """Rows of a .jsonl, .csv/.tsv or .parquet file, streamed (bounded memory), with clear errors."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: no such file")
    if p.suffix.lower() == ".parquet":
        yield from _parquet_rows(path)
        return
    with p.open("rb") as raw:
        head = raw.read(65_536)
    check_head(head, path)
    sample = _sample_text(head, path)
    try:
        with p.open("r", encoding="utf-8-sig", newline="" if _is_csv(path) else None) as handle:
            if _is_csv(path):
                yield from _csv_rows(handle, sample, path)
            else:
                for n, line in enumerate(handle, 1):
                    row = _json_row(line, path, n)
                    if row is not None:
                        yield row
    except UnicodeDecodeError:
        decode_bytes(p.read_bytes()[:2_000_000], path)  # raises with the likely encoding
        raise InputError(f"{path} is not valid UTF-8") from None


def iter_records(path: str, mapping: Optional[dict] = None) -> Iterator[Record]:
    """Records of a file, streamed."""
    return records_from_rows(iter_rows(path), mapping, path)


def read_records(path: str, mapping: Optional[dict] = None) -> list[Record]:
    """All records of a .jsonl/.json or .csv/.tsv file."""
    return list(iter_records(path, mapping))


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
        "coverage": report.coverage.model_dump(exclude={"elapsed_s"}),  # no timings: outputs are reproducible
    }
