"""The chat-completion boundary: one `complete()` call, with memo cache, retries and usage.

`OpenAIChatClient` talks to any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server)
through the `openai` package, asking for structured output with a JSON schema.
"""
from __future__ import annotations

import os
import random
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..cache import MemoCache, cache_key


class JudgeConfigError(ValueError):
    """The judge cannot be set up as asked (e.g. no API key); the message says how to fix it."""


class LLMCallError(RuntimeError):
    """A call failed after its retries; the message names the cause, never the API key."""


@dataclass
class Completion:
    """The text of one reply and what it cost (a cached reply cost nothing now)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False


class ChatClient(ABC):
    """Anything that turns chat messages and a JSON schema into a reply."""

    model: str = "unknown"

    @abstractmethod
    def complete(self, messages: list[dict], schema: dict, schema_name: str) -> Completion:
        """One structured-output chat completion."""


def resolve_setting(explicit: Optional[str], env_var: str, default: Optional[str] = None) -> Optional[str]:
    """Explicit argument, then environment variable, then default."""
    if explicit:
        return explicit
    return os.environ.get(env_var) or default


_RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}


def _retry_after(exc: Exception) -> Optional[float]:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _is_retryable(exc: Exception) -> bool:
    import openai

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code in _RETRYABLE_STATUS


class OpenAIChatClient(ChatClient):
    """Chat completions on an OpenAI-compatible endpoint, memoized, with bounded retries."""

    def __init__(self, model: str, base_url: Optional[str] = None, api_key: Optional[str] = None,
                 timeout_s: float = 60.0, max_attempts: int = 4, temperature: float = 0.0,
                 cache: Optional[MemoCache] = None, client: Any = None,
                 sleep: Callable[[float], None] = time.sleep, seed: int = 0, max_concurrency: int = 8):
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.temperature = temperature
        self.cache = cache
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))  # in-flight requests, all threads
        self._random = random.Random(seed)
        if client is None:
            import openai

            client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)
        self._client = client

    def _key(self, messages: list[dict], schema: dict, schema_name: str) -> str:
        return cache_key({"kind": "chat", "base_url": self.base_url or "", "model": self.model,
                          "temperature": self.temperature, "messages": messages,
                          "schema": schema, "schema_name": schema_name})

    def complete(self, messages: list[dict], schema: dict, schema_name: str) -> Completion:
        key = self._key(messages, schema, schema_name)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return Completion(text=hit["text"], cached=True)
        completion = self._call_with_retries(messages, schema, schema_name)
        if self.cache is not None:
            self.cache.put(key, {"text": completion.text, "prompt_tokens": completion.prompt_tokens,
                                 "completion_tokens": completion.completion_tokens})
        return completion

    def _call_with_retries(self, messages: list[dict], schema: dict, schema_name: str) -> Completion:
        last: Optional[Exception] = None
        for attempt in range(self.max_attempts):
            try:
                with self._slots:
                    response = self._client.chat.completions.create(
                        model=self.model, messages=messages, temperature=self.temperature,
                        response_format={"type": "json_schema",
                                         "json_schema": {"name": schema_name, "schema": schema, "strict": True}},
                        timeout=self.timeout_s)
            except Exception as exc:  # classified below; non-retryable errors end the call
                if not _is_retryable(exc):
                    raise LLMCallError(_describe(exc)) from None
                last = exc
                if attempt + 1 < self.max_attempts:
                    self._sleep(self._backoff(attempt, _retry_after(exc)))
                continue
            choice = response.choices[0] if getattr(response, "choices", None) else None
            text = (choice.message.content if choice is not None else None) or ""
            usage = getattr(response, "usage", None)
            return Completion(text=text, prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                              completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0))
        raise LLMCallError(f"gave up after {self.max_attempts} attempts: {_describe(last)}")

    def _backoff(self, attempt: int, retry_after: Optional[float]) -> float:
        """Exponential backoff with full jitter; a server's Retry-After wins (capped at 60 s)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), 60.0)
        return self._random.uniform(0, min(30.0, 0.5 * 2 ** attempt))


def _describe(exc: Optional[Exception]) -> str:
    """A one-line cause that carries no secrets (the SDK's messages never include the key)."""
    if exc is None:
        return "unknown error"
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    return f"{name} (HTTP {status})" if status else name
