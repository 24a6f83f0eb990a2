"""The OpenAI batch file format (also what `vllm run_batch` reads and writes): one request per input line,
`{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}`; one result per output line,
`{"custom_id", "response": {"status_code", "body"}, "error"}`."""
from __future__ import annotations

import json
from typing import Iterable, Iterator

from rt4chart.batch.provider.deferred import Outcome
from rt4chart.core.errors import InputError

ENDPOINT = "/v1/chat/completions"


def request_lines(requests: dict[str, dict]) -> Iterator[bytes]:
    """The input file's lines (custom_id -> body), in a stable order."""
    for custom_id in sorted(requests):
        line = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": requests[custom_id]}
        yield json.dumps(line, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def split(requests: dict[str, dict], max_requests: int, max_bytes: int) -> list[dict[str, dict]]:
    """Requests in parts that each fit one provider batch (requests and bytes per input file)."""
    parts: list[dict[str, dict]] = [{}]
    size = 0
    for custom_id, line in zip(sorted(requests), request_lines(requests)):
        if parts[-1] and (len(parts[-1]) >= max_requests or size + len(line) > max_bytes):
            parts.append({})
            size = 0
        if len(line) > max_bytes:
            raise InputError(f"one request is {len(line):,} bytes, over the provider's {max_bytes:,} per batch file; "
                             "lower the window size")
        parts[-1][custom_id] = requests[custom_id]
        size += len(line)
    return [p for p in parts if p]


def read_results(lines: Iterable[str], source: str) -> Iterator[tuple[str, Outcome]]:
    """(custom_id, outcome) of every line of an output or error file. A line that is not a result (not JSON, no
    custom_id, a body of the wrong shape) answers no request: it is skipped, so its request has no answer and is
    asked again in the next round; every good line is kept (a reply that was paid for is never dropped)."""
    for line in lines:
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(item, dict) or not isinstance(item.get("custom_id"), str):
            continue
        yield item["custom_id"], outcome_of(item)


def outcome_of(item: dict) -> Outcome:
    """One result line's outcome: the reply body (status 200), or the error in the provider's words."""
    given = item.get("response")
    response: dict = given if isinstance(given, dict) else {}
    error = item.get("error")
    try:
        status = int(response.get("status_code") or 0)
    except (TypeError, ValueError):
        status = 0
    body = response.get("body")
    if not error and status == 200 and isinstance(body, dict):
        return Outcome(status_code=200, body=body)
    message = (error.get("message") if isinstance(error, dict) else None) or (
        body.get("error", {}).get("message") if isinstance(body, dict) and isinstance(body.get("error"), dict)
        else None) or str(error or body)
    return Outcome(status_code=status if 100 <= status <= 599 and status != 200 else 500, message=str(message)[:500])
