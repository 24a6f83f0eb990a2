"""Character-span helpers: merging, clipping and locating verbatim substrings."""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from rt4chart.core.types import Span


def merge_spans(spans: Iterable[Span], join_gap: int = 0, text: Optional[str] = None) -> list[Span]:
    """Sorted union of spans; spans separated by at most `join_gap` spaces/commas (checked in `text`) merge."""
    ordered = sorted((s for s in spans if s.end > s.start), key=lambda s: (s.start, s.end))
    merged: list[Span] = []
    for span in ordered:
        if merged:
            last = merged[-1]
            gap_ok = span.start <= last.end or (
                join_gap and span.start - last.end <= join_gap
                and (text is None or text[last.end:span.start].strip(" \t,") == ""))
            if gap_ok:
                merged[-1] = Span(start=last.start, end=max(last.end, span.end))
                continue
        merged.append(span)
    return merged


def clip_to(spans: Iterable[Span], bounds: Sequence[Span]) -> list[Span]:
    """The parts of `spans` that lie inside any of `bounds`."""
    clipped = []
    for span in spans:
        for bound in bounds:
            start, end = max(span.start, bound.start), min(span.end, bound.end)
            if end > start:
                clipped.append(Span(start=start, end=end))
    return merge_spans(clipped)


def locate(text: str, needle: str, within: Sequence[Span] = (), after: int = 0) -> Optional[Span]:
    """Where `needle` occurs in `text`: first inside `within` (in order), then at or after `after`,
    then anywhere. Repeated substrings resolve to the occurrence nearest the claim's own place."""
    needle = needle.strip()
    if not needle:
        return None
    for bound in within:
        pos = text.find(needle, bound.start, bound.end)
        if pos >= 0:
            return Span(start=pos, end=pos + len(needle))
    pos = text.find(needle, after)
    if pos < 0:
        pos = text.find(needle)
    if pos < 0:
        lowered = text.lower().find(needle.lower(), after)
        pos = lowered if lowered >= 0 else text.lower().find(needle.lower())
    return Span(start=pos, end=pos + len(needle)) if pos >= 0 else None
