"""Records to audit from tables (column mapping, ids, per-record problems) and text files."""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Sequence

from rt4chart.core.errors import InputError
from rt4chart.core.rows import Record  # noqa: F401 - re-exported
from rt4chart.data.columns import EXACT, detect_columns, list_cells  # noqa: F401 - detect_columns is part of this module's API
from rt4chart.data.tables import JsonNumber, Table, UnreadableRow, decode_bytes, open_table, table_from_bytes  # noqa: F401 - re-exported


def write_text(path: str, text: str) -> str:
    """Write `text` to a file, or to standard output for '-' (read_text's twin); returns where it went, in words."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return "standard output"
    Path(path).write_text(text, encoding="utf-8")
    return path


def read_text(path: str) -> str:
    """A whole text file, or standard input for '-'."""
    if path == "-":
        return decode_bytes(sys.stdin.buffer.read(), "standard input")
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: no such file")
    return decode_bytes(p.read_bytes(), path)


def _cell(value) -> Optional[str]:
    """A cell as text, exactly as written (whitespace too); only a missing value (None, a Parquet null or
    float NaN, a JSON null) or an empty cell is missing. Text such as 'NULL' or 'nan' is kept as text."""
    if value is None:
        return None
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, JsonNumber):
        text = value.literal
    elif isinstance(value, str):
        text = value
    elif isinstance(value, (bytes, bytearray, memoryview)):  # a Parquet binary column: its UTF-8 text
        text = bytes(value).decode("utf-8", "surrogateescape")  # bytes that are no UTF-8 make the record fail
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    return text if text != "" else None


def unicode_problem(text: str) -> Optional[str]:
    """Where `text` holds a code point that no UTF-8 output can carry (a lone surrogate), if anywhere."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate U+{ord(text[exc.start]):04X} at character {exc.start}"
    return None


def _question_of(row: dict, column: Optional[str]) -> Optional[str]:
    if column and _cell(row.get(column)):
        return _cell(row[column])
    meta = row.get("meta")
    if isinstance(meta, dict) and _cell(meta.get("question")):
        return _cell(meta["question"])
    return None


def resolve_roles(columns: list[str], mapping: Optional[dict], source: str,
                  sample: Sequence[dict] = ()) -> dict[str, Optional[str]]:
    """The role -> column mapping (auto-detected, then overridden by `mapping`); missing roles raise."""
    roles = detect_columns(columns, sample)
    roles.update({k: v for k, v in (mapping or {}).items() if v and k in roles})
    unknown = [f"{role} -> {col!r}" for role, col in roles.items() if col and col not in columns]
    if unknown:
        raise InputError(f"{source}: no such column for {', '.join(unknown)}. Columns found: "
                         f"{', '.join(map(str, columns)) or '(none)'}")
    roles["context_cells"] = list_cells(columns, roles.get("context"))  # a known format's passages in one cell
    missing = [r for r in ("context", "answer") if not roles.get(r)]
    if missing:
        raise InputError(f"{source}: no column for {' and '.join(missing)}. Columns found: "
                         f"{', '.join(map(str, columns)) or '(none)'}. Needed: a context column (e.g. "
                         f"{', '.join(EXACT['context'][:4])}...) and an answer column (e.g. "
                         f"{', '.join(EXACT['answer'][:4])}...); map them with --context-col/--answer-col "
                         "(the mapping boxes in the app).")
    return roles


class UniqueIds:
    """Row ids in input order: the id column's value, else the row number. An explicit id is never renamed
    for a row without one: a row number that some row gives as its id (`explicit`) takes a '#n' suffix instead.
    A repeated explicit id gets a '#n' suffix too (never colliding with another id), so no row is lost or merged."""

    def __init__(self, explicit: Iterable[Optional[str]] = ()):
        self.used: set[str] = set()
        self.explicit = {e for e in explicit if e is not None}
        self._suffixes: dict[str, int] = {}

    def _suffixed(self, base: str) -> str:
        k = self._suffixes.get(base, 1)
        while k == 1 or f"{base}#{k}" in self.used or f"{base}#{k}" in self.explicit:
            k += 1
        self._suffixes[base] = k
        return f"{base}#{k}"

    def assign(self, raw: Optional[str], n: int) -> tuple[str, Optional[str]]:
        """(the id to use, the original id when an explicit id was renamed)."""
        original = None
        if raw is None:
            rid = str(n)
            if rid in self.used or rid in self.explicit:
                rid = self._suffixed(rid)
        elif raw in self.used:
            original, rid = raw, self._suffixed(raw)
        else:
            rid = raw
        self.used.add(rid)
        return rid, original


def raw_id(row: dict, roles: dict) -> Optional[str]:
    return _cell(row.get(roles["id"])) if roles.get("id") else None


_PASSAGE_TEXT = ("page_content", "text", "content", "document", "passage", "chunk")
_PASSAGE_TITLE = ("title", "name", "source", "url", "id")


def passages_text(value: list) -> str:
    """A list of retrieved documents as numbered passages ("Passage 1: …"), each with its title where it has one,
    so the citation checks know the passages (the list was one JSON blob before)."""
    blocks = []
    for k, item in enumerate(value, 1):
        if isinstance(item, dict):
            body = next((item[key] for key in _PASSAGE_TEXT if isinstance(item.get(key), str)), None)
            meta: dict = item["metadata"] if isinstance(item.get("metadata"), dict) else {}
            title = next((str(source[key]) for key in _PASSAGE_TITLE for source in (item, meta)
                          if source.get(key) not in (None, "")), None)  # a title before an id, wherever it is
            text = body if body is not None else json.dumps(item, ensure_ascii=False)
            blocks.append(f"Passage {k}: " + (f"{title}. " if title and body is not None else "") + text)
        else:
            blocks.append(f"Passage {k}: {'' if item is None else item}")
    return "\n\n".join(blocks)


def list_of_cell(value, encoding: Optional[str]):
    """A text cell that holds a list of passages in a known format's own encoding, as the list; else the value.
    "python-list": the list's Python repr (RAGAS' to_csv), read as a literal, never evaluated as code;
    "pipe": passages joined with "|" (DeepEval's save_as)."""
    if not isinstance(value, str) or encoding is None:
        return value
    text = value.strip()
    if encoding == "python-list" and text.startswith("[") and text.endswith("]"):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return value
        return parsed if isinstance(parsed, list) and all(isinstance(v, str) for v in parsed) else value
    if encoding == "pipe" and "|" in text:
        return text.split("|")
    return value


def _context_of(value, encoding: Optional[str] = None) -> str:
    value = list_of_cell(value, encoding)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (str, dict)) for v in value):
        return passages_text(list(value))
    return _cell(value) or ""


def make_record(row: dict, roles: dict, n: int, rid: str, original: Optional[str] = None) -> Record:
    """The record of row number `n` (1-based); invalid Unicode or an unreadable row makes it a record with an
    `error`."""
    if isinstance(row, UnreadableRow):
        return Record(id=rid, renamed_from=original, context="", answer="", row=n, error=f"InputError: {row.problem}")
    record = Record(id=rid, renamed_from=original, context=_context_of(row.get(roles["context"]),
                                                                       roles.get("context_cells")),
                    answer=_cell(row.get(roles["answer"])) or "", question=_question_of(row, roles.get("question")),
                    extra={k: v for k, v in row.items() if k not in (roles["context"], roles["answer"])}, row=n)
    for name, value in (("id", record.id), ("context", record.context), ("answer", record.answer),
                        ("question", record.question or "")):
        problem = unicode_problem(value)
        if problem:
            record.error = f"InputError: the {name} is not valid Unicode ({problem}); fix the record and re-run"
            break
    return record


def records_from_rows(rows: Iterable[dict], mapping: Optional[dict] = None, source: str = "input",
                      columns: Optional[list[str]] = None,
                      rows_again: Optional[Callable[[], Iterable[dict]]] = None) -> Iterator[Record]:
    """Records from dict rows (consumed lazily), one per row, in order, with a role -> column mapping.

    `columns` are the table's columns (else the first row's keys). Ids come from the id column, else
    the row number; a repeated id gets a '#n' suffix so no row is lost or merged (`renamed_from` keeps
    the original). The explicit ids are read first (from `rows` when it is a sequence, else from
    `rows_again()`), so that a row number given to a row without an id never takes an id that a later row
    gives. A record whose texts hold invalid Unicode carries an `error` instead of being audited."""
    iterator = iter(rows)
    first = next(iterator, None)
    if first is None:
        return
    roles = resolve_roles(list(columns) if columns is not None else list(first.keys()), mapping, source, [first])
    again = (lambda: rows) if isinstance(rows, Sequence) else rows_again
    ids = UniqueIds(raw_id(row, roles) for row in again()) if roles.get("id") and again else UniqueIds()
    for n, row in enumerate(_chain(first, iterator), 1):
        rid, original = ids.assign(raw_id(row, roles), n)
        yield make_record(row, roles, n, rid, original)


def _chain(first: dict, rest: Iterator[dict]) -> Iterator[dict]:
    yield first
    yield from rest


def iter_rows(path: str, delimiter: Optional[str] = None) -> Iterator[dict]:
    """Rows of a .jsonl, .csv/.tsv or .parquet file, validated first, then streamed (bounded memory)."""
    return open_table(path, delimiter).rows()


def table_records(table: Table, mapping: Optional[dict] = None) -> Iterator[Record]:
    """The records of a validated table, one per record, in order."""
    return records_from_rows(table.rows(), mapping, table.source, columns=table.columns, rows_again=table.rows)


def iter_records(path: str, mapping: Optional[dict] = None, delimiter: Optional[str] = None) -> Iterator[Record]:
    """Records of a file, validated first, then streamed."""
    return table_records(open_table(path, delimiter), mapping)


def read_records(path: str, mapping: Optional[dict] = None, delimiter: Optional[str] = None) -> list[Record]:
    """All records of a .jsonl/.json, .csv/.tsv or .parquet file."""
    return list(iter_records(path, mapping, delimiter))


def parse_rows(data: bytes, name: str, delimiter: Optional[str] = None) -> list[dict]:
    """Rows of a whole file held in memory (an upload), read by the same reader as files."""
    return list(table_from_bytes(data, name, delimiter).rows())
