"""Text every database holds exactly: PostgreSQL refuses NUL in text, and no UTF-8 driver takes a lone
surrogate (both can be in a JSON record's id). Such text is stored as a marker and its ASCII JSON string, and
read back as it was; all other text is stored as it is (so stores written before need no migration)."""
from __future__ import annotations

import json
from typing import Optional

from sqlalchemy import String, Text
from sqlalchemy.types import TypeDecorator

MARK = "rt4:json:"  # text starting with it is encoded too, so reading back is never ambiguous


def needs_escape(value: str) -> bool:
    if value.startswith(MARK) or "\x00" in value:
        return True
    if value.isascii():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def encode(value: Optional[str]) -> Optional[str]:
    if value is None or not needs_escape(value):
        return value
    return MARK + json.dumps(value)  # ASCII: NUL as \u0000, a surrogate as \ud800


def decode(value: Optional[str]) -> Optional[str]:
    if value is None or not value.startswith(MARK):
        return value
    return json.loads(value[len(MARK):])


class _Lossless(TypeDecorator):
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return encode(value)

    def process_result_value(self, value, dialect):
        return decode(value)


class LosslessText(_Lossless):
    """A Text column that gives back exactly the str it was given (comparisons in queries are encoded too)."""

    impl = Text
    cache_ok = True


class LosslessString(_Lossless):
    """The same over a bounded String column (a name)."""

    impl = String
    cache_ok = True
