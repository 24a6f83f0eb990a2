"""JSON as rt4chart reads records, the one reader of every JSON input (JSON Lines tables, traces, benchmark
files): numbers keep their literal, a key given twice is refused, and so are NaN and Infinity; lines are split
at '\\n' only (U+2028 and other Unicode line breaks are text inside JSON)."""
from __future__ import annotations

import json
import sys
from typing import Iterator, Optional

from rt4chart.core.errors import InputError


class JsonNumber(float):
    """A JSON number with a fraction or exponent that remembers how it was written, so an id `1.10` stays
    `1.10` (not `1.1`) and `1e2` stays `1e2` (not `100.0`); it computes like the float it is."""

    literal: str

    def __new__(cls, literal: str) -> "JsonNumber":
        number = super().__new__(cls, literal)
        number.literal = literal
        return number


class _DuplicateKey(ValueError):
    pass


class _NotJsonConstant(ValueError):
    pass


def _refuse_constant(name: str) -> float:
    raise _NotJsonConstant(name)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen.add(key)
    return dict(pairs)


class UnreadableRow(dict):
    """A line that is JSON but nests deeper than the reader can follow: an empty row that carries why, so it
    becomes that record's error row and every other record is read."""

    def __init__(self, problem: str):
        super().__init__()
        self.problem = problem


INT_DIGITS = 4000  # under Python's int-from-text limit (4,300 digits), which raises a ValueError past it


def _integer(literal: str):
    """An integer as written; one too long for Python's int conversion stays its literal (as a JsonNumber),
    never an error in the parser."""
    return int(literal) if len(literal) <= INT_DIGITS else JsonNumber(literal)


def parse_json(text: str):
    """JSON as rt4chart reads records: numbers keep their literal, a key given twice is refused, and so are
    NaN and Infinity (Python's extensions, not JSON: a NaN context would silently become a missing one)."""
    return json.loads(text, parse_float=JsonNumber, parse_int=_integer, object_pairs_hook=_unique_keys,
                      parse_constant=_refuse_constant)


def json_object(line: str, source: str, n: int) -> Optional[dict]:
    """The JSON object on line `n`, None for a blank line, an `UnreadableRow` for one nested too deeply to
    read (that record's error); anything else is refused with its line."""
    if not line.strip():
        return None
    try:
        obj = parse_json(line)
    except RecursionError:
        return UnreadableRow("the record nests JSON deeper than the reader can follow (about "
                             f"{sys.getrecursionlimit()} levels); flatten its nested values and re-run")
    except _DuplicateKey as exc:
        raise InputError(f"{source}: line {n}: the key {exc.args[0]!r} appears twice in one object, so which value "
                         "is meant is ambiguous; keep one") from None
    except _NotJsonConstant as exc:
        raise InputError(f"{source}: line {n}: {exc.args[0]} is not JSON; write null for a missing value, or "
                         f"\"{exc.args[0]}\" in quotes for the text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: line {n}: not valid JSON ({exc.msg}); each line must be one JSON "
                         "object") from None
    if not isinstance(obj, dict):
        raise InputError(f"{source}: line {n}: expected a JSON object, got {type(obj).__name__}")
    return obj


def json_lines(text: str, source: str) -> Iterator[tuple[int, dict]]:
    """(line number, object) of every non-blank line of JSON Lines text held whole; a line nested too deeply
    is refused here (a reader that needs the whole file has no row to carry it)."""
    for n, line in enumerate(text.split("\n"), 1):
        obj = json_object(line, source, n)
        if isinstance(obj, UnreadableRow):
            raise InputError(f"{source}: line {n}: {obj.problem}")
        if obj is not None:
            yield n, obj


def json_document(text: str, source: str, strict: bool = True):
    """A whole file's text as one JSON document, read as records are (literal numbers; a repeated key, NaN or
    Infinity refused with the file). A text that is not one JSON document is refused with the place it breaks,
    or, with `strict=False`, gives None (the caller reads it as JSON Lines)."""
    try:
        return parse_json(text.lstrip("\ufeff"))
    except RecursionError:
        raise InputError(f"{source}: the JSON nests deeper than the reader can follow; flatten it") from None
    except _DuplicateKey as exc:
        raise InputError(f"{source}: the key {exc.args[0]!r} appears twice in one object; keep one") from None
    except _NotJsonConstant as exc:
        raise InputError(f"{source}: {exc.args[0]} is not JSON; write null for a missing value") from None
    except json.JSONDecodeError as exc:
        if not strict:
            return None
        raise InputError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
