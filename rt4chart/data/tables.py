"""Reading tables of records (CSV/TSV, JSONL, Parquet) exactly: every record once, whole, in order.

A table is validated in full before any row is handed out, so a malformed file is refused with its
file, line and what is wrong before anything is audited; never merged, split or partly read.

CSV/TSV are read in the standard RFC 4180 dialect (doubled quotes, quoted newlines, CRLF, BOM) with
no guessing of quoting rules; the delimiter comes from the extension (.tsv) or an explicit option.
Validation is a strict pass with Python's `csv` module (it knows physical line numbers and refuses a
quote followed by junk, which pandas would silently drop); the rows themselves are then streamed in
chunks by pandas' C parser, and the two record counts must agree or nothing is read.
"""
from __future__ import annotations

import csv
import io
import os
import stat
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, Optional

from rt4chart.core.errors import InputError
from rt4chart.data.json_records import (  # noqa: F401 - re-exported: records, partitions
    JsonNumber,
    UnreadableRow,
    _DuplicateKey,
    _NotJsonConstant,
    json_document,
    json_object,
    parse_json,
)

CSV_SUFFIXES = (".csv", ".tsv", ".txt")
JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")
PARQUET_SUFFIXES = (".parquet",)
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
CHUNK_ROWS = 256
_HEAD = 65_536


def decode_bytes(data: bytes, name: str) -> str:
    """UTF-8 (with or without BOM); anything else is an error naming the likely encoding."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not valid UTF-8 (byte {exc.start}).{_encoding_hint(data, name)}") from None


SINGLE_BYTE_USUAL = ("cp1252", "cp1250", "latin-1")  # Western and Central European files, most often


def _encoding_hint(data: bytes, name: str) -> str:
    """How to convert the file. A single-byte code page cannot be told from its bytes alone (0xE0 is 'à' in
    cp1252 and 'ŕ' in cp1250), so the text around the first non-UTF-8 byte is shown as each likely code page
    reads it, and the user picks the one that reads right; a multi-byte encoding (UTF-16, Shift JIS) is named."""
    try:
        from charset_normalizer import from_bytes

        matches = list(from_bytes(data[:200_000]))
    except ImportError:  # pragma: no cover - charset_normalizer is a dependency
        return ""
    guesses = list(dict.fromkeys(m.encoding for m in matches))
    if not guesses:
        return ""
    if not _single_byte(guesses[0]):
        return f" It looks like {guesses[0]}; convert it with: iconv -f {guesses[0]} -t utf-8 {name}"
    try:
        data.decode("utf-8")
        at = 0
    except UnicodeDecodeError as exc:
        at = exc.start
    start = max(0, data.rfind(b"\n", 0, at) + 1, at - 40)
    end = data.find(b"\n", at)
    piece = data[start:min(end if end >= 0 else len(data), at + 40)]
    candidates = list(dict.fromkeys([g for g in guesses[:2] if _single_byte(g)] + list(SINGLE_BYTE_USUAL)))[:3]
    readings = "; ".join(f"{c}: {piece.decode(c, errors='replace')!r}" for c in candidates)
    return (f" It is in a single-byte code page, which its bytes do not tell apart; the text there reads, in {readings}."
            f" Convert it with the one that reads right: iconv -f CODEPAGE -t utf-8 {name} (CODEPAGE: "
            f"{', '.join(candidates)} or the one it was written in)")


def _single_byte(encoding: str) -> bool:
    import codecs

    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return False
    return name.startswith(("cp12", "iso8859", "latin", "cp8", "cp4", "cp7", "mac", "koi8", "windows")) or name in (
        "iso8859-1", "latin-1")


def check_head(head: bytes, name: str) -> None:
    """Refuse an empty or binary file from its first bytes, with a message that says so."""
    if not head.strip():
        raise InputError(f"{name}: the file is empty")
    if b"\x00" in head[:_HEAD]:
        raise InputError(f"{name}: looks like a binary file (NUL bytes); expected CSV, TSV or JSONL text")


def delimiter_for(name: str, delimiter: Optional[str] = None) -> str:
    """The CSV delimiter: the explicit one, else tab for .tsv, else comma. Never guessed from content."""
    if delimiter:
        named = {"comma": ",", "semicolon": ";", "tab": "\t", "\\t": "\t", "pipe": "|"}.get(delimiter, delimiter)
        if len(named) != 1 or named in '"\r\n':
            raise InputError(f"delimiter {delimiter!r} is not one character (use ',', ';', 'tab' or '|')")
        return named
    return "\t" if Path(name).suffix.lower() == ".tsv" else ","


def _rfc4180(delimiter: str) -> type[csv.Dialect]:
    class RFC4180(csv.Dialect):
        quotechar = '"'
        doublequote = True
        skipinitialspace = False
        lineterminator = "\r\n"
        quoting = csv.QUOTE_MINIMAL
        strict = True

    RFC4180.delimiter = delimiter
    return RFC4180


@dataclass
class Table:
    """A validated table: its columns, its number of records, and its rows streamed as dicts."""

    source: str
    kind: str                   # "csv" | "jsonl" | "parquet" | "ragtruth" | "traces"
    columns: list[str]
    count: int
    _rows: Callable[[], Iterator[dict]]
    format: Optional[str] = None  # a format recognised by its files (RAGTruth's folder, OTLP traces), said to the user
    stamp: Optional[tuple[int, int]] = None  # the file's (size, mtime_ns) when it was validated

    def __post_init__(self) -> None:
        if self.stamp is None:
            self.stamp = _stamp(self.source)

    def rows(self) -> Iterator[dict]:
        """Every record, in file order; raises if the stream disagrees with the validated count."""
        n = 0
        for row in self._rows():
            n += 1
            yield row
        if n != self.count:
            if self.stamp is not None and _stamp(self.source) != self.stamp:
                raise InputError(f"{self.source}: the file changed while it was read (validation counted {self.count} "
                                 f"records, the run read {n}); let whatever writes it finish, or audit a copy, and run "
                                 "again")
            raise InputError(f"{self.source}: read {n} records where validation counted {self.count}; "
                             "nothing was written (please report this file)")


def _stamp(source: str) -> Optional[tuple[int, int]]:
    """(size, mtime_ns) of a file on disk; None for a name that is no file (an upload, a folder's records)."""
    try:
        info = os.stat(source)
    except (OSError, ValueError):
        return None
    return (info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None


def _text(raw: BinaryIO) -> io.TextIOWrapper:
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="strict", newline="")


def undecodable(opener: Callable[[], BinaryIO], source: str, line: int) -> InputError:
    with opener() as raw:
        data = raw.read(2_000_000)
    return InputError(f"{source}: line {line}: not valid UTF-8.{_encoding_hint(data, source)}")


def _check_header(header: list[str], source: str, delimiter: str) -> None:
    for i, name in enumerate(header, 1):
        if not name.strip():
            raise InputError(f"{source}: line 1: column {i} of the header has no name; every column needs one")
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(f"{source}: line 1: the header names column {name!r} twice; column names must be "
                             "unique")
        seen.add(name)
    if len(header) == 1:
        others = [d for d in DELIMITERS if d != delimiter and d in header[0]]
        if others:
            raise InputError(f"{source}: line 1: the header is one column {header[0][:80]!r}; if the file is "
                             f"separated by {DELIMITERS[others[0]]}s, say so (--delimiter '{others[0]}' on the "
                             "command line, the delimiter box in the app)")


def _validate_csv(opener: Callable[[], BinaryIO], source: str, delimiter: str) -> tuple[list[str], int]:
    """(header, record count) after a strict RFC 4180 pass; a malformed file raises with its line."""
    header: Optional[list[str]] = None
    count = last_line = 0
    csv.field_size_limit(sys.maxsize)  # a cell may hold a whole document
    with opener() as raw:
        handle = _text(raw)
        reader = csv.reader(handle, _rfc4180(delimiter))
        try:
            for row in reader:
                start, last_line = last_line + 1, reader.line_num
                if not row:
                    continue  # a blank line is no record (pandas skips it too)
                if header is None:
                    header = row
                    _check_header(header, source, delimiter)
                    continue
                if len(row) != len(header):
                    where = f"line {start}" if start == last_line else f"lines {start}-{last_line}"
                    raise InputError(
                        f"{source}: {where}: {len(row)} fields where the header has {len(header)}; a "
                        f"{DELIMITERS.get(delimiter, repr(delimiter))} or a line break inside a cell must be "
                        "inside double quotes (\"...\"), and a quote inside a quoted cell is doubled (\"\")")
                count += 1
        except csv.Error as exc:
            start = last_line + 1
            what = ("a quoted cell that starts here is never closed" if "end of data" in str(exc)
                    else f"malformed quoting ({exc}): after a closing quote comes a delimiter or the line end")
            raise InputError(f"{source}: line {start}: {what}; nothing was read") from None
        except UnicodeDecodeError:
            raise undecodable(opener, source, last_line + 1) from None
    if header is None:
        raise InputError(f"{source}: the file is empty (no header row)")
    return header, count


def _pandas_rows(opener: Callable[[], BinaryIO], delimiter: str, header: list[str]) -> Iterator[dict]:
    import pandas as pd

    with opener() as raw, warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)  # a warning would mean lost data
        chunks = pd.read_csv(_text(raw), sep=delimiter, quotechar='"', doublequote=True, escapechar=None,
                             quoting=csv.QUOTE_MINIMAL, skipinitialspace=False, skip_blank_lines=True,
                             header=0, index_col=False, dtype=str, na_filter=False, keep_default_na=False,
                             engine="c", chunksize=CHUNK_ROWS)
        for chunk in chunks:
            if chunk.shape[1] != len(header):
                raise InputError("the CSV reader found another number of columns than the header has")
            for values in chunk.itertuples(index=False, name=None):
                yield dict(zip(header, values))


def _jsonl_lines(opener: Callable[[], BinaryIO], source: str) -> Iterator[tuple[int, str]]:
    """Lines split at '\\n' only: U+2028, U+0085 and other Unicode line breaks are text inside JSON."""
    with opener() as raw:
        handle = io.TextIOWrapper(raw, encoding="utf-8-sig", errors="strict", newline="\n")
        n = 0
        try:
            for n, line in enumerate(handle, 1):
                yield n, line
        except UnicodeDecodeError:
            raise undecodable(opener, source, n + 1) from None


def _validate_jsonl(opener: Callable[[], BinaryIO], source: str) -> tuple[list[str], int]:
    columns: dict[str, None] = {}
    count = 0
    for n, line in _jsonl_lines(opener, source):
        obj = json_object(line, source, n)
        if obj is not None:
            count += 1
            columns.update(dict.fromkeys(obj))
    return list(columns), count


def _jsonl_rows(opener: Callable[[], BinaryIO], source: str) -> Iterator[dict]:
    for n, line in _jsonl_lines(opener, source):
        obj = json_object(line, source, n)
        if obj is not None:
            yield obj


def _parquet_table(path: str) -> Table:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow)") from None
    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for a file that is not Parquet
        raise InputError(f"{path}: not a readable Parquet file ({type(exc).__name__})") from None

    def rows() -> Iterator[dict]:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=1024):
            yield from batch.to_pylist()

    return Table(path, "parquet", list(parquet.schema_arrow.names), parquet.metadata.num_rows, rows)


def _json_array_table(opener: Callable[[], BinaryIO], source: str) -> Table:
    """A .json file holding one array of objects (what DeepEval's `save_as(file_type="json")` and many exports
    write), read whole; each object a record, in order; anything else in it is refused with its position."""
    with opener() as raw:
        data = raw.read()
    items = json_document(decode_bytes(data, source), source)
    bad = next((k for k, item in enumerate(items, 1) if not isinstance(item, dict)), None)
    if bad is not None:
        raise InputError(f"{source}: item {bad} of the array is not a JSON object")
    columns: dict[str, None] = {}
    for item in items:
        columns.update(dict.fromkeys(item))
    return Table(source, "json", list(columns), len(items), lambda: iter(items))


def _refuse_one_object(opener: Callable[[], BinaryIO], source: str) -> None:
    """A .json file that is one (pretty-printed) object, not records: said so, with the shapes that are read."""
    with opener() as raw:
        data = raw.read()
    try:
        whole = parse_json(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):  # not one object: the record reader says what it is
        return
    if isinstance(whole, dict):
        raise InputError(f"{source} holds one JSON object ({', '.join(list(map(str, whole))[:5]) or 'empty'}), not "
                         "records: give a JSON array of records, or JSON Lines (one record per line); trace exports "
                         "(OTLP), FaithBench batches and the other formats in the README are recognised as they are")


def _table(opener: Callable[[], BinaryIO], source: str, delimiter: Optional[str]) -> Table:
    with opener() as raw:
        head = raw.read(_HEAD)
    check_head(head, source)
    suffix = Path(source).suffix.lower()
    if suffix == ".json" and head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        return _json_array_table(opener, source)
    if suffix in JSONL_SUFFIXES:
        try:
            columns, count = _validate_jsonl(opener, source)
        except InputError:
            if suffix == ".json":
                _refuse_one_object(opener, source)
            raise
        return Table(source, "jsonl", columns, count, lambda: _jsonl_rows(opener, source))
    if suffix in CSV_SUFFIXES:
        sep = delimiter_for(source, delimiter)
        header, count = _validate_csv(opener, source, sep)
        return Table(source, "csv", header, count, lambda: _pandas_rows(opener, sep, header))
    raise InputError(f"{source}: unsupported file type {suffix or '(none)'}; use .csv, .tsv, .jsonl or .parquet")


@dataclass(frozen=True)
class Shape:
    """A format known by its shape rather than its columns (read whole): how it is recognised in a file (and in an
    upload's bytes, where it can be uploaded) and read. The one list of them is `shapes()`."""

    kind: str                                                   # the Table's kind
    sniff: Callable[[str], Optional[str]]                       # path -> the format's name, or None
    read: Callable[[str, str], Table]                           # path, format -> the table
    sniff_bytes: Optional[Callable[[bytes, str], Optional[str]]] = None
    read_bytes: Optional[Callable[[bytes, str, str], Table]] = None


def shapes() -> tuple[Shape, ...]:
    """RAGTruth's folder, OpenInference/LangSmith/TruLens traces, HaluEval and FaithBench, in the order they are
    tried (imported when asked for)."""
    from rt4chart.data import benchmarks, ragtruth, traces

    def read_traces(path: str, fmt: str) -> Table:
        records = traces.read(path, fmt)
        return Table(path, "traces", list(traces.COLUMNS), len(records), lambda: iter(records), format=fmt)

    def traces_from_bytes(data: bytes, name: str, fmt: str) -> Table:
        records = traces.read_text(decode_bytes(data, name), fmt, name)
        return Table(name, "traces", list(traces.COLUMNS), len(records), lambda: iter(records), format=fmt)

    def read_benchmark(path: str, fmt: str) -> Table:
        columns, found = benchmarks.read(path, fmt)
        return Table(path, "benchmark", columns, len(found), lambda: iter(found), format=fmt)

    def benchmark_from_bytes(data: bytes, name: str, fmt: str) -> Table:
        columns, found = benchmarks.read_text(decode_bytes(data, name), fmt, name)
        return Table(name, "benchmark", columns, len(found), lambda: iter(found), format=fmt)

    return (
        Shape("ragtruth", lambda path: ragtruth.FORMAT if ragtruth.ragtruth_files(path) else None,
              lambda path, _fmt: Table(path, "ragtruth", list(ragtruth.COLUMNS), ragtruth.validate(path),
                                       lambda: ragtruth.rows(path), format=ragtruth.FORMAT)),
        Shape("traces", traces.sniff, read_traces, traces.sniff_bytes, traces_from_bytes),
        Shape("benchmark", benchmarks.sniff, read_benchmark, lambda data, name: benchmarks.sniff_head(data[:_HEAD], name),
              benchmark_from_bytes),
    )


def shape_of(path: str) -> Optional[tuple[Shape, str]]:
    """The shape `path` is in, and its format's name; None for a plain table (JSONL, CSV, Parquet of records)."""
    for shape in shapes():
        fmt = shape.sniff(path)
        if fmt is not None:
            return shape, fmt
    return None


def _recognised(path: str) -> Optional[Table]:
    found = shape_of(path)
    return found[0].read(path, found[1]) if found is not None else None


def open_table(path: str, delimiter: Optional[str] = None) -> Table:
    """A validated table from a file (streamed: memory stays bounded whatever the file's size), or from a
    format known by its shape (RAGTruth's folder of response.jsonl + source_info.jsonl, OpenInference traces,
    HaluEval, FaithBench), read whole."""
    from rt4chart.data import ragtruth

    recognised = _recognised(path)
    if recognised is not None:
        return recognised
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{path} is a folder; give a .jsonl, .csv/.tsv or .parquet file, or RAGTruth's folder "
                         f"(with {ragtruth.RESPONSES} and {ragtruth.SOURCES})")
    if not p.is_file():
        raise InputError(f"{path}: no such file")
    if p.suffix.lower() in PARQUET_SUFFIXES:
        return _parquet_table(path)
    return _table(lambda: open(p, "rb"), path, delimiter)


def table_from_bytes(data: bytes, name: str, delimiter: Optional[str] = None) -> Table:
    """A validated table from bytes held in memory (an upload), read exactly as a file of that name."""
    if Path(name).suffix.lower() in PARQUET_SUFFIXES:
        raise InputError(f"{name}: upload Parquet files through the command line (rt4chart batch)")
    for shape in shapes():
        fmt = shape.sniff_bytes(data, name) if shape.sniff_bytes is not None else None
        if fmt is not None and shape.read_bytes is not None:
            check_head(data[:_HEAD], name)
            return shape.read_bytes(data, name, fmt)
    return _table(lambda: io.BytesIO(data), name, delimiter)
