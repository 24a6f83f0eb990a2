"""Partitions of an input file that Dask workers read themselves, so the driver neither parses rows for
them nor ships their texts.

The driver makes a plan in one pass over the file: it validates every record (a malformed file is still
refused before anything is audited, with its line), notes where each partition starts (JSONL: byte
offsets of line starts; Parquet: row groups), and assigns every row its final id in input order (a
repeated id made unique exactly as the local engine does). Workers read [start, end) and build the same
records the local engine would. CSV/TSV (quoted newlines make byte ranges unsafe to find) is read by the
driver and shipped as records.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Optional

from rt4chart.core.errors import InputError
from rt4chart.core.rows import Record
from rt4chart.data.columns import could_be_id
from rt4chart.data.records import UniqueIds, make_record, raw_id, resolve_roles
from rt4chart.data.tables import JSONL_SUFFIXES, PARQUET_SUFFIXES, check_head, json_object, undecodable


@dataclass(frozen=True)
class Partition:
    first: int                     # position (0-based) of its first record
    count: int
    kind: str                      # "jsonl" | "parquet"
    path: str
    start: int = 0                 # jsonl: byte range [start, end)
    end: int = 0
    row_groups: tuple = ()         # parquet: the row groups, in order
    renames: tuple = ()            # (position, id, original id) of the rows whose id was made unique


@dataclass
class Plan:
    count: int
    columns: list[str]
    roles: dict
    partitions: list[Partition] = field(default_factory=list)
    renamed: list[str] = field(default_factory=list)   # original ids that were made unique


def plannable(path: str) -> bool:
    """Whether workers can read their partitions of `path` themselves (one JSONL or Parquet file of records;
    RAGTruth's response.jsonl needs its source_info.jsonl joined, a trace's spans may lie anywhere in a traces
    file, a HaluEval line is two records: the driver reads those)."""
    from rt4chart.data.tables import shape_of

    return Path(path).suffix.lower() in JSONL_SUFFIXES + PARQUET_SUFFIXES and shape_of(path) is None


def partition_size(count: int, workers: int) -> int:
    """About eight partitions per worker (so no worker idles at the tail), 25 to 2,000 rows each."""
    return max(25, min(2_000, -(-count // max(1, 8 * workers))))


_id_like = lru_cache(maxsize=4096)(could_be_id)  # asked once per key of every line


def _id_candidate(column: str, mapping: Optional[dict]) -> bool:
    """Could this column be the id column? (Its values are kept while planning, the others are not.)"""
    return column == (mapping or {}).get("id") or _id_like(column)


def _ids(raw: list[Optional[str]], renames: dict[int, tuple[str, Optional[str]]], renamed: list[str]) -> None:
    unique = UniqueIds(raw)
    for position, value in enumerate(raw):
        rid, original = unique.assign(value, position + 1)
        if original is not None:
            renamed.append(original)
        if rid != (value if value is not None else str(position + 1)):
            renames[position] = (rid, original)


def _group(counts: list[int], size: int) -> list[tuple[int, int, int]]:
    """(first position, count, index of the first unit) of consecutive units holding about `size` rows."""
    groups, first, unit, total = [], 0, 0, 0
    for i, n in enumerate(counts):
        total += n
        if total >= size or i == len(counts) - 1:
            groups.append((first, total, unit))
            first, unit, total = first + total, i + 1, 0
    return groups


def plan_jsonl(path: str, mapping: Optional[dict], workers: int, size: Optional[int] = None) -> Plan:
    with open(path, "rb") as handle:
        check_head(handle.read(65_536), path)
        handle.seek(0)
        offset = 3 if handle.read(3) == b"\xef\xbb\xbf" else 0
        handle.seek(offset)
        starts, columns, candidates, first_row = array("q"), {}, [], None
        for number, line in enumerate(handle, 1):
            begin, offset = offset, offset + len(line)
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                raise undecodable(lambda: open(path, "rb"), path, number) from None
            obj = json_object(text, path, number)  # the same checks and messages as the local reader
            if obj is None:
                continue
            starts.append(begin)
            first_row = first_row if first_row is not None else obj
            columns.update(dict.fromkeys(obj))
            candidates.append({k: v for k, v in obj.items() if _id_candidate(k, mapping)})
        end = offset
    count = len(starts)
    if not count:
        return Plan(0, list(columns), {})
    roles = resolve_roles(list(columns), mapping, path, [first_row or {}])
    renames: dict[int, tuple[str, Optional[str]]] = {}
    renamed: list[str] = []
    _ids([raw_id(c, roles) for c in candidates], renames, renamed)
    step = size or partition_size(count, workers)
    parts = []
    for first in range(0, count, step):
        last = min(count, first + step)
        parts.append(Partition(first=first, count=last - first, kind="jsonl", path=path, start=starts[first],
                               end=starts[last] if last < count else end,
                               renames=tuple((p, *renames[p]) for p in range(first, last) if p in renames)))
    return Plan(count, list(columns), roles, parts, renamed)


def plan_parquet(path: str, mapping: Optional[dict], workers: int, size: Optional[int] = None) -> Plan:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a file that is not Parquet
        raise InputError(f"{path}: not a readable Parquet file ({type(exc).__name__})") from None
    columns = list(parquet.schema_arrow.names)
    count = parquet.metadata.num_rows
    if not count:
        return Plan(0, columns, {})
    first_row = next(parquet.iter_batches(batch_size=1)).to_pylist()[0]
    roles = resolve_roles(columns, mapping, path, [first_row])
    raw: list[Optional[str]] = [None] * count
    if roles.get("id"):
        raw = [raw_id({roles["id"]: v}, roles) for v in parquet.read(columns=[roles["id"]]).column(0).to_pylist()]
    renames: dict[int, tuple[str, Optional[str]]] = {}
    renamed: list[str] = []
    _ids(raw, renames, renamed)
    counts = [parquet.metadata.row_group(i).num_rows for i in range(parquet.num_row_groups)]
    parts = []
    for first, n, unit in _group(counts, size or partition_size(count, workers)):
        groups, total, i = [], 0, unit
        while total < n:
            groups.append(i)
            total += counts[i]
            i += 1
        parts.append(Partition(first=first, count=n, kind="parquet", path=path, row_groups=tuple(groups),
                               renames=tuple((p, *renames[p]) for p in range(first, first + n) if p in renames)))
    return Plan(count, columns, roles, parts, renamed)


def plan_input(path: str, mapping: Optional[dict], workers: int, size: Optional[int] = None) -> Plan:
    if not Path(path).is_file():
        raise InputError(f"{path}: no such file")
    if Path(path).suffix.lower() in PARQUET_SUFFIXES:
        return plan_parquet(path, mapping, workers, size)
    return plan_jsonl(path, mapping, workers, size)


def read_partition(part: Partition, roles: dict) -> Iterator[tuple[int, Record]]:
    """(position, record) of every row of a partition, exactly as the local engine builds them."""
    renames = {p: (rid, original) for p, rid, original in part.renames}
    if part.kind == "parquet":
        import pyarrow.parquet as pq

        rows = pq.ParquetFile(part.path).read_row_groups(list(part.row_groups)).to_pylist()
    else:
        with open(part.path, "rb") as handle:
            handle.seek(part.start)
            data = handle.read(part.end - part.start)
        rows = (json_object(line, part.path, 0) for line in data.decode("utf-8").split("\n") if line.strip())
    for position, row in enumerate(rows, part.first):
        rid, original = renames.get(position, (None, None))
        if rid is None:
            raw = raw_id(row, roles)
            rid = raw if raw is not None else str(position + 1)
        yield position, make_record(row, roles, position + 1, rid, original)
