"""Passages inside a context and what an answer says about them: where each context sentence's passage is
("passage 2: …" headers), which passages a claim cites, and which claims are statements about the context
("… is not mentioned in the passages")."""
from __future__ import annotations

import re
from typing import Optional

_HEADER = re.compile(r"(?im)^[ \t]*\[?(?:passage|document|source|doc)[ \t]*(\d{1,3})\]?[ \t]*[:.)-]")
_CITE = re.compile(r"\b(?:passages?|documents?|sources?)[ \t]+(\d{1,3})((?:[ \t]*(?:,|and|&)[ \t]*\d{1,3})*)", re.I)
META_WORDS = frozenset("""passage passages context document documents source sources information text article articles
data mention mentions mentioned provide provides provided state states stated specify specifies specified include
includes included contain contains contained explicitly specifically directly discuss discusses discussed address
addresses addressed given available say says said detail details note notes noted although however regarding
about whether any either""".split())
_ABOUT = re.compile(
    r"\b(?:passages?|context|documents?|sources?|texts?|articles?|search results?)(?:[ \t]+\d{1,3})?[ \t]+"
    r"(?:do|does|did)(?:[ \t]+not|n't)[ \t]+(?:\w+ly[ \t]+)?(?:provide|mention|contain|specify|include|say|state|give|"
    r"offer|discuss|address|describe|explain)"
    r"|\b(?:not|never)[ \t]+(?:\w+ly[ \t]+)?(?:mentioned|specified|provided|stated|given|included|available|discussed|"
    r"addressed|described|explained)[ \t]+(?:in|by)[ \t]+(?:the[ \t]+|any[ \t]+of[ \t]+the[ \t]+)?(?:given[ \t]+|provided"
    r"[ \t]+)?(?:passages?|context|documents?|sources?|texts?|articles?|search results?)"
    r"|\bthere(?:'s| is)[ \t]+no[ \t]+(?:information|mention|details?)\b|\bno[ \t]+(?:information|mention)[ \t]+"
    r"(?:about|on|of|regarding)\b", re.I)


def about_context(text: str) -> bool:
    """A statement about what the context says ("… is not mentioned in the passages"): true exactly when
    the context does not say it; it is checked as such, never negated against the context."""
    return bool(_ABOUT.search(text))


def passage_numbers(context: str, starts: list[int]) -> Optional[list[Optional[int]]]:
    """The passage number of each sentence (by its start offset), when the context has passage headers."""
    headers = [(m.start(), int(m.group(1))) for m in _HEADER.finditer(context)]
    if len(headers) < 2:
        return None
    out, k = [], -1
    for start in starts:
        while k + 1 < len(headers) and headers[k + 1][0] <= start:
            k += 1
        out.append(headers[k][1] if k >= 0 else None)
    return out


def cited_passages(text: str) -> set[int]:
    cited: set[int] = set()
    for m in _CITE.finditer(text):
        cited.add(int(m.group(1)))
        cited.update(int(n) for n in re.findall(r"\d{1,3}", m.group(2) or ""))
    return cited
