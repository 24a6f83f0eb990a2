"""The chat-completion boundary: what a client returns, how it fails, and how a failure is described.

`ChatClient.complete()` sends one structured-output request (with retries) and reports every request
it sent; `remember()` stores a reply in the memo cache once the caller has validated it, so a failure
is never cached. The OpenAI-compatible implementation is `openai_client.OpenAIChatClient`.
"""
from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Optional

from rt4chart.core.cost import Cost
from rt4chart.core.errors import JudgeConfigError, JudgeFatalError, LLMCallError  # noqa: F401 - re-exported


@dataclass
class Completion:
    """The text of one reply and what it cost. A cached reply cost nothing now (`requests == 0`).
    `requests` counts every request sent for it (retries included), `failed` those that failed."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    requests: int = 1
    failed: int = 0
    finish_reason: Optional[str] = None
    key: str = ""

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    @property
    def cost(self) -> Cost:
        """What this reply cost now: one cached call, or the requests sent and their tokens."""
        if self.cached:
            return Cost(cached_calls=1)
        return Cost(calls=self.requests, failed_calls=self.failed, prompt_tokens=self.prompt_tokens,
                    completion_tokens=self.completion_tokens)


class ChatClient(ABC):
    """Anything that turns chat messages and a JSON schema into a reply."""

    model: str = "unknown"

    @abstractmethod
    def complete(self, messages: list[dict], schema: dict, schema_name: str, max_tokens: Optional[int] = None,
                 use_cache: bool = True) -> Completion:
        """One structured-output chat completion (from the memo cache when `use_cache` and present)."""

    def remember(self, key: str, text: str) -> None:
        """Store a validated reply under `key` (the request it answers); a no-op without a cache."""
        return None

    def endpoint_info(self) -> dict:
        """What was discovered about the endpoint (response format in use, context size), for manifests."""
        return {}

    def context_tokens(self) -> Optional[int]:
        """The model's context size in tokens, when set or discovered."""
        return None


def resolve_setting(explicit: Optional[str], env_var: str, default: Optional[str] = None) -> Optional[str]:
    """Explicit argument, then environment variable, then default."""
    if explicit:
        return explicit
    return os.environ.get(env_var) or default


_KEYLIKE = re.compile(r"\b(sk|rk|pk|key|api[-_]?key)[-_][A-Za-z0-9_\-]{6,}", re.IGNORECASE)
_OVERFLOW = re.compile(r"context (?:size|length|window)|maximum context|exceed_context|too many tokens|"
                       r"prompt is too long|reduce the length", re.IGNORECASE)


def redact(text: str, secret: Optional[str] = None) -> str:
    """`text` without the API key (some servers echo it) or anything shaped like one."""
    if secret:
        text = text.replace(secret, "***")
    return _KEYLIKE.sub(lambda m: f"{m.group(1)}-***", text)


def server_message(exc: BaseException, secret: Optional[str] = None, limit: int = 300) -> str:
    """The server's own words from an SDK error (its JSON `error.message`), trimmed, key-free."""
    body = getattr(exc, "body", None)
    message = None
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else (error if isinstance(error, str) else None)
        if message is None and isinstance(body.get("detail"), (str, list)):
            message = str(body["detail"])
    if not message:
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    message = " ".join(str(message).split())
    message = redact(message, secret)
    return message if len(message) <= limit else message[:limit - 1] + "…"


def is_overflow(message: str) -> bool:
    """Whether a server message says the request does not fit the model's context."""
    return bool(_OVERFLOW.search(message))
