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
    """(custom_id, outcome) of every line of an output or error file; a malformed line is refused with its
    number (the file is the provider's, so nothing is guessed)."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            custom_id = item["custom_id"]
        except (ValueError, KeyError, TypeError):
            raise InputError(f"{source}: line {n}: not a batch result line (JSON with a custom_id)") from None
        response = item.get("response") or {}
        error = item.get("error")
        status = int(response.get("status_code") or 0)
        body = response.get("body")
        if error or status != 200 or not isinstance(body, dict):
            message = (error.get("message") if isinstance(error, dict) else None) or (
                (body or {}).get("error", {}).get("message") if isinstance(body, dict) else None) or str(error or body)
            yield custom_id, Outcome(status_code=status or 500, message=str(message)[:500])
        else:
            yield custom_id, Outcome(status_code=200, body=body)
