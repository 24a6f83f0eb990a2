"""Dataset improvement insights: "what should this RAG system fix?"

1. Warm-up: the rows with the most hallucinated claims, one after another; each step gives the LLM
   the memoized list of action items and one row, and keeps the list it returns (items added or
   merged). It stops when the list is stable (`patience` steps in a row report success) or the
   warm-up subset is used up.
2. Parallel phase: every other row with issues is asked, with bounded concurrency, only which items
   it supports and whether it adds something new; rows that do are flagged "interesting".
3. Consolidation: one call merges the candidates of the interesting rows into the list.
Each item keeps the ids of the rows that support it. Results are processed in input order, so the
same replies always give the same report.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Optional

from pydantic import BaseModel

from rt4chart.core.cost import Cost
from rt4chart.core.errors import JudgeConfigError
from rt4chart.insights.types import ActionItem, AuditedRow, InsightsReport
from rt4chart.judges.base import Judge
from rt4chart.judges.llm import prompts
from rt4chart.judges.llm.client import ChatClient
from rt4chart.judges.llm.prompts import fence_safe
from rt4chart.judges.llm.structured import ask

NEEDS_LLM = ("insights need an LLM judge: set OPENAI_API_KEY (and OPENAI_BASE_URL / RT4CHART_MODEL for a local "
             "OpenAI-compatible server) and choose the openai judge")


class _Item(BaseModel):
    id: str
    title: str
    description: str


class _WarmItem(_Item):
    supported_by_row: bool
    merged_from: list[str]


class _Warmup(BaseModel):
    success: bool
    items: list[_WarmItem]


class _Check(BaseModel):
    adds_new: bool
    supports: list[str]
    new_items: list[_Item]


class _MergedItem(_Item):
    merged_from: list[str]


class _Consolidated(BaseModel):
    items: list[_MergedItem]


def _schema(model: type[BaseModel]) -> dict:
    """Strict-mode JSON schema of a reply model: every property required, no extra properties."""
    def strict(node):
        if isinstance(node, dict):
            if "type" in node or "$ref" in node:  # a schema node, not a `properties` mapping
                node.pop("title", None)
            if node.get("type") == "object":
                node["additionalProperties"] = False
                node["required"] = list(node.get("properties", {}))
            for value in node.values():
                strict(value)
        elif isinstance(node, list):
            for value in node:
                strict(value)
        return node
    return strict(model.model_json_schema())


def row_digest(row: AuditedRow, max_claims: int = 8) -> str:
    """A compact, fenced view of one audited answer: its unsupported claims and nearest evidence."""
    lines = [f"id: {row.id}"]
    if row.question:
        lines.append(f"question: {fence_safe(row.question[:300])}")
    lines.append(f"answer: {fence_safe(row.answer[:1200])}")
    for claim in [c for c in row.claims if c.get("verdict") in ("contradicted", "baseless")][:max_claims]:
        evidence = "; ".join(fence_safe(str(e)[:300]) for e in (claim.get("evidence") or [])[:2]) or "none"
        lines.append(f"- {claim['verdict']}: {fence_safe(str(claim.get('text', ''))[:300])} | closest context: {evidence}")
    return "\n".join(lines)


def rows_from_predictions(lines: Iterable[dict]) -> list[AuditedRow]:
    """Audited rows from `rt4chart predict`/`batch` output lines (error rows are skipped)."""
    rows = []
    for line in lines:
        if line.get("error"):
            continue
        claims = [{"text": c.get("text", ""), "verdict": c.get("verdict"),
                   "evidence": [e.get("text", "") for e in c.get("evidence") or []]} for c in line.get("claims") or []]
        rows.append(AuditedRow(id=str(line.get("id")), answer=line.get("answer", ""), question=line.get("question"),
                               claims=claims, status=line.get("status") or ""))
    return rows


def rows_from_reports(reports: dict) -> list[AuditedRow]:
    """Audited rows from AuditReports keyed by row id (the dashboard's batch results)."""
    return [AuditedRow(id=rid, answer=r.answer, question=r.question, status=r.status,
                       claims=[{"text": c.claim.text, "verdict": c.verdict.value,
                                "evidence": [e.text for e in c.evidence]} for c in r.claims])
            for rid, r in reports.items()]


def client_of(judge: Judge) -> ChatClient:
    client = getattr(judge, "client", None)
    if client is None or not isinstance(client, ChatClient):
        raise JudgeConfigError(NEEDS_LLM)
    return client


def _items_json(items: dict[str, ActionItem]) -> str:
    return json.dumps([{"id": i.id, "title": i.title, "description": i.description, "rows": i.count}
                       for i in items.values()], ensure_ascii=False, indent=1)


def _absorb(items: dict[str, ActionItem], new: list, extra_rows: Optional[dict[str, list[str]]] = None
            ) -> dict[str, ActionItem]:
    """The new list, each item carrying the rows of itself and of every item it absorbed; old items the
    reply forgot are kept, so no support is ever lost."""
    result: dict[str, ActionItem] = {}
    absorbed: set[str] = set()
    for item in new:
        rows: list[str] = []
        for source in [item.id, *getattr(item, "merged_from", [])]:
            absorbed.add(source)
            rows += items[source].rows if source in items else []
            rows += (extra_rows or {}).get(source, [])
        if item.id in result:
            rows = result[item.id].rows + rows
        result[item.id] = ActionItem(id=item.id, title=item.title, description=item.description,
                                     rows=list(dict.fromkeys(rows)))
    for key, old in items.items():
        if key not in absorbed and key not in result:
            result[key] = old
    return result


REPLY_TOKENS = 2_048  # a list of action items, each a title and a few sentences


Check = Callable[[AuditedRow, ChatClient], tuple]
# The parallel phase's runner: every row checked, results in input order (threads by default; provider
# rounds with `rt4chart insights --via batch-api`, rt4chart.insights.in_rounds).
ParallelPhase = Callable[[list[AuditedRow], Check], list[tuple]]


def _warm_up(ranked: list[AuditedRow], warmup: int, patience: int, client: ChatClient, system: str, usage: Cost,
             report: InsightsReport) -> tuple[dict[str, ActionItem], list[AuditedRow]]:
    """The sequential warm-up: the rows with the most issues one by one, the action items growing, until the judge
    says `patience` times in a row that nothing changed; the items and the rows left for the parallel phase."""
    items: dict[str, ActionItem] = {}
    rest = ranked[warmup:]
    stable = 0
    for row in ranked[:warmup]:
        prompt = prompts.render("insights_warmup", items=_items_json(items), row=row_digest(row))
        reply, failure = ask(client, prompt, _schema(_Warmup), "insights_warmup", _Warmup, usage, system=system,
                             max_tokens=REPLY_TOKENS)
        report.warmup_steps += 1
        report.warmup_rows.append(row.id)
        if reply is None:
            report.failures.append(f"warm-up row {row.id}: {failure}")
            continue
        items = _absorb(items, reply.items)
        for item in reply.items:
            if item.supported_by_row and row.id not in items[item.id].rows:
                items[item.id].rows.append(row.id)
        stable = stable + 1 if reply.success else 0
        if stable >= patience:
            rest = ranked[report.warmup_steps:]
            break
    return items, rest


def _take_checks(outcomes: list[tuple], items: dict[str, ActionItem], usage: Cost,
                 report: InsightsReport) -> tuple[list[_Item], dict[str, list[str]]]:
    """The parallel phase's replies, in input order (deterministic): rows added to the items they support, and
    the new items they propose as candidates (with the row that proposed each)."""
    candidates: list[_Item] = []
    candidate_rows: dict[str, list[str]] = {}
    for row, reply, failure, own, seconds in outcomes:
        usage += own
        report.sequential_estimate_s += seconds
        if reply is None:
            report.failures.append(f"row {row.id}: {failure}")
            continue
        for item_id in reply.supports:
            if item_id in items and row.id not in items[item_id].rows:
                items[item_id].rows.append(row.id)
        if reply.adds_new and reply.new_items:
            report.interesting_rows.append(row.id)
            for item in reply.new_items:
                key = f"candidate-{len(candidates) + 1}"
                candidates.append(_Item(id=key, title=item.title, description=item.description))
                candidate_rows[key] = [row.id]
    return candidates, candidate_rows


def _consolidated(items: dict[str, ActionItem], candidates: list[_Item], candidate_rows: dict[str, list[str]],
                  client: ChatClient, system: str, usage: Cost, report: InsightsReport) -> dict[str, ActionItem]:
    """The candidates merged into the items by one call; when it fails, kept as separate items."""
    if not candidates:
        return items
    prompt = prompts.render("insights_consolidate", items=_items_json(items),
                            candidates=json.dumps([c.model_dump() for c in candidates], ensure_ascii=False))
    merged, failure = ask(client, prompt, _schema(_Consolidated), "insights_consolidate", _Consolidated, usage,
                          system=system, max_tokens=2 * REPLY_TOKENS)
    if merged is None:
        report.failures.append(f"consolidation: {failure}; candidates kept as separate items")
        items.update({c.id: ActionItem(id=c.id, title=c.title, description=c.description,
                                       rows=candidate_rows[c.id]) for c in candidates})
        return items
    return _absorb(items, merged.items, candidate_rows)


def build_insights(rows: list[AuditedRow], client: ChatClient, warmup: int = 10, patience: int = 3,
                   workers: int = 4, parallel: Optional[ParallelPhase] = None) -> InsightsReport:
    """Run warm-up, parallel phase and consolidation over audited rows."""
    started = time.perf_counter()
    usage = Cost()
    system = prompts.load("insights_system")
    report = InsightsReport()
    with_issues = [r for r in rows if r.issues]
    report.unverified_rows = sum(1 for r in rows if r.unverified)
    report.skipped_rows = len(rows) - len(with_issues) - report.unverified_rows
    ranked = sorted(with_issues, key=lambda r: -r.issues)  # stable: ties keep input order
    items, rest = _warm_up(ranked, warmup, patience, client, system, usage, report)

    frozen = _items_json(items)
    phase_started = time.perf_counter()

    def check(row: AuditedRow, asked: ChatClient) -> tuple:
        own = Cost()
        t0 = time.perf_counter()
        prompt = prompts.render("insights_check", items=frozen, row=row_digest(row))
        reply, failure = ask(asked, prompt, _schema(_Check), "insights_check", _Check, own, system=system,
                             max_tokens=REPLY_TOKENS)
        return row, reply, failure, own, time.perf_counter() - t0

    if parallel is None:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            outcomes = list(pool.map(lambda row: check(row, client), rest))
    else:
        outcomes = parallel(rest, check)
    report.parallel_wall_s = time.perf_counter() - phase_started
    report.parallel_rows = len(rest)
    candidates, candidate_rows = _take_checks(outcomes, items, usage, report)
    items = _consolidated(items, candidates, candidate_rows, client, system, usage, report)

    report.items = sorted(items.values(), key=lambda i: (-i.count, i.id))
    report.cost = Cost(calls=usage.calls, cached_calls=usage.cached_calls, prompt_tokens=usage.prompt_tokens,
                       completion_tokens=usage.completion_tokens)  # what the report keeps of the usage
    report.elapsed_s = time.perf_counter() - started
    return report
