"""Text that every UTF-8 sink can carry: a lone surrogate (possible in a JSON record, never in UTF-8) is shown
as its escape `\\ud800`, so a page, a download or a table shows the record instead of failing on it."""
from __future__ import annotations

from typing import Any


def printable(value: Any) -> Any:
    """`value` with lone surrogates written as `\\udXXX` escapes when it is text; anything else unchanged."""
    if not isinstance(value, str) or value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def printable_row(row: dict) -> dict:
    """A flat row whose keys and text values are printable (the same dict when they already are)."""
    out = {printable(k): printable(v) for k, v in row.items()}
    return row if all(a is b for a, b in zip(out.values(), row.values())) and list(out) == list(row) else out


def printable_frame(frame):
    """A pandas DataFrame whose text cells and column names are printable (the same frame when they are)."""
    columns = [printable(c) for c in frame.columns]
    text = [c for c in frame.columns if frame[c].dtype == object]
    if columns == list(frame.columns) and not any(frame[c].map(lambda v: printable(v) is not v).any() for c in text):
        return frame
    out = frame.copy()
    for c in text:
        out[c] = out[c].map(printable)
    out.columns = columns
    return out
