"""Replies that arrive later: the openai judge's client runs unchanged over an SDK stand-in whose
`chat.completions.create()` answers from the replies collected so far, and stops the row with `ReplyPending`
when a request has not been answered yet. A row is audited again, from the start, once the replies it waits
for are in: the same code decides, validates and repairs as on the synchronous path, so the same replies give
the same report."""
from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Optional


class ReplyPending(BaseException):
    """The row waits for a reply (a BaseException: no judge code may mistake it for a failed request)."""

    def __init__(self, custom_id: str, body: dict):
        super().__init__(custom_id)
        self.custom_id, self.body = custom_id, body


class ProviderLineError(Exception):
    """A request the provider answered with an error (its error file, a non-200 line, an expired batch): read
    by the client like the SDK's status errors (`status_code`, `body`), so it is retried or fails the same way."""

    per_request = True  # the provider took the batch: an error here is this request's, never the run's setup

    def __init__(self, status_code: int, message: str):
        super().__init__(message)
        self.status_code = status_code
        self.message = message
        self.body = {"error": {"message": message}}


def request_body(request: dict) -> dict:
    """What is sent for a chat completion (the client's per-request timeout is no part of it)."""
    return {k: v for k, v in request.items() if k != "timeout"}


def custom_id_of(body: dict) -> str:
    """A request's id in a provider batch: the digest of its body, so the same request is one line."""
    text = json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return "rt4-" + hashlib.sha256(text.encode("ascii")).hexdigest()[:32]


@dataclass
class Outcome:
    """One provider answer to one request: a reply body (status 200) or an error."""

    status_code: int
    body: Optional[dict] = None
    message: str = ""


@dataclass
class Outcomes:
    """Every answer collected for every request, in the order they came (a retried request has several)."""

    by_id: dict[str, list[Outcome]] = field(default_factory=dict)

    def add(self, custom_id: str, outcome: Outcome) -> None:
        self.by_id.setdefault(custom_id, []).append(outcome)


def _namespace(value: Any) -> Any:
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _namespace(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_namespace(v) for v in value]
    return value


class DeferredSDK:
    """Stands in for `openai.OpenAI` in the judge's client. The n-th time one row sends a request, it gets the
    n-th outcome collected for it (an error is retried by the client within its budget, as on the synchronous
    path); a request with no outcome left raises ReplyPending."""

    def __init__(self, outcomes: Outcomes):
        self.outcomes = outcomes
        self._row = threading.local()
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def begin_row(self) -> None:
        """A row starts (again) from its first request: attempts are counted per row."""
        self._row.sent = {}

    def _create(self, **request: Any) -> Any:
        body = request_body(request)
        custom_id = custom_id_of(body)
        sent = getattr(self._row, "sent", None)
        if sent is None:
            self.begin_row()
            sent = self._row.sent
        n = sent.get(custom_id, 0)
        sent[custom_id] = n + 1
        known = self.outcomes.by_id.get(custom_id, [])
        if n >= len(known):
            raise ReplyPending(custom_id, body)
        outcome = known[n]
        if outcome.status_code != 200 or outcome.body is None:
            raise ProviderLineError(outcome.status_code, outcome.message or f"HTTP {outcome.status_code}")
        return _namespace(outcome.body)
