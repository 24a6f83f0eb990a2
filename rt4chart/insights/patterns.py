"""Issue patterns without an LLM: the flagged claims of a batch grouped by the kind of reason the judge gave
("the context gives a different figure than …", "the context does not mention …"), most rows first. What a
team can fix first when no LLM is there to write action items."""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable, Mapping

from rt4chart.core.types import AuditReport
from rt4chart.insights.types import ActionItem

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")


def reason_kind(rationale: str) -> str:
    """A rationale without its particulars: quoted words as '…', numbers as N, only its first clause."""
    first = re.split(r";|\. |\(", rationale, maxsplit=1)[0]
    return " ".join(_NUMBER.sub("N", _QUOTED.sub("'…'", first)).split()).strip(" .:") or "no reason given"


def issue_patterns(reports: Mapping[str, AuditReport], row_ids: Iterable[str], top: int = 8) -> list[ActionItem]:
    """The most common kinds of flag among the rows `row_ids`, each with its rows (most flags first)."""
    groups: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    example: dict[tuple[str, str], str] = {}
    for row_id in row_ids:
        report = reports[row_id]
        for result in report.claims:
            if not result.verdict.is_hallucination:
                continue
            key = (result.verdict.value, reason_kind(result.rationale))
            groups[key][row_id] += 1
            example.setdefault(key, f"{result.claim.text} — {result.rationale}")
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), -sum(kv[1].values()), kv[0]))
    items = []
    for (verdict, kind), rows in ranked[:top]:
        claims = sum(rows.values())
        items.append(ActionItem(
            id=f"{verdict}:{kind}"[:80], title=f"{verdict}: {kind}",
            description=f"{claims} flagged claims in {len(rows)} rows. For example: {example[(verdict, kind)][:300]}",
            rows=sorted(rows, key=lambda r: (-rows[r], r))))
    return items
