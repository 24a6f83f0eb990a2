"""Rows in input order, in bounded pieces: the one way every engine cuts its work."""
from __future__ import annotations

from typing import Iterable, Iterator

from rt4chart.core.rows import Record


def chunks(rows: Iterable[tuple[int, Record]], size: int) -> Iterator[list[tuple[int, Record]]]:
    chunk: list[tuple[int, Record]] = []
    for item in rows:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
