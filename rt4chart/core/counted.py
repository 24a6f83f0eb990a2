"""A count with its noun, in the right number: "1 round", "3 rounds", "1 provider batch", "12,000 rows"."""
from __future__ import annotations


def counted(count: int, noun: str, plural: str = "") -> str:
    """`count` with thousands separators and `noun`, or `plural` (default: noun + "s", or + "es" after s, x, ch, sh)."""
    if count == 1:
        return f"1 {noun}"
    many = plural or (noun + "es" if noun.endswith(("s", "x", "ch", "sh")) else noun + "s")
    return f"{count:,} {many}"
