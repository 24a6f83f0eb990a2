"""Chat completions on any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, llama-cpp-python)
through the `openai` package: bounded replies, bounded retries, honest request counts, and a fallback
through the structured-output formats an endpoint accepts.

- Every request sets `max_tokens` (the caller sizes it per step); `finish_reason == "length"` comes back
  as a truncated completion for the caller to treat as a failure.
- 429, 5xx and dropped connections are retried with backoff (`Retry-After` wins); a timeout of the same
  deterministic request is retried once, not blindly.
- 401/403 (key), 404 (model or URL), and a 400 before any request has succeeded stop the run with one
  `JudgeFatalError` naming the endpoint, the model and the fix; later requests fail fast without sending.
- A rejected `response_format` steps down json_schema -> json_object + schema (llama-cpp-python) ->
  json_object with the schema in the prompt -> no response_format, and the client keeps the first
  format the endpoint accepts for the rest of the run (recorded in `endpoint_info()`).
"""
from __future__ import annotations

import json
import random
import re
import threading
import time
from types import SimpleNamespace
from typing import Any, Callable, Optional

from rt4chart.core.errors import JudgeConfigError, JudgeFatalError, LLMCallError
from rt4chart.judges.cache import MemoCache, cache_key
from rt4chart.judges.llm.client import ChatClient, Completion, is_overflow, redact, server_message
from rt4chart.judges.names import RESPONSE_MODES

_MODE_REJECTED = re.compile(r"response_format|json_schema|json_object|literal_error|structured output|"
                            r"guided_json|grammar", re.IGNORECASE)
_RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}
_SCHEMA_IN_PROMPT = "\n\nReply with one JSON object that matches this JSON schema exactly:\n"


def _retry_after(exc: Exception) -> Optional[float]:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIChatClient(ChatClient):
    """Chat completions on an OpenAI-compatible endpoint, memoized, with bounded retries."""

    def __init__(self, model: str, base_url: Optional[str] = None, api_key: Optional[str] = None,
                 timeout_s: float = 60.0, max_attempts: int = 4, temperature: float = 0.0,
                 cache: Optional[MemoCache] = None, client: Any = None,
                 sleep: Callable[[float], None] = time.sleep, seed: int = 0, max_concurrency: int = 8,
                 response_mode: Optional[str] = None, context_tokens: Optional[int] = None,
                 discover: bool = True):
        if response_mode is not None and response_mode not in RESPONSE_MODES:
            raise JudgeConfigError(f"unknown response mode {response_mode!r}; choose one of: {', '.join(RESPONSE_MODES)}")
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.temperature = temperature
        self.cache = cache
        self.mode = response_mode or RESPONSE_MODES[0]
        self._mode_fixed = response_mode is not None
        self._context_tokens = context_tokens
        self._discover = discover and context_tokens is None
        self._discovered = False
        self._max_tokens_param = "max_tokens"
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))  # in-flight requests, all threads
        self._lock = threading.Lock()
        self._random = random.Random(seed)
        self._fatal: Optional[JudgeFatalError] = None
        self._succeeded = False
        self._api_key = api_key
        if client is None:
            import openai

            client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)
        self._client = client

    @property
    def api_key(self) -> Optional[str]:
        """The key this client sends (engines that rebuild the judge elsewhere pass it on; never logged)."""
        return self._api_key

    def answered_by(self, sdk: Any) -> "OpenAIChatClient":
        """This client (model, endpoint, key, attempts, temperature, cache, response format) with its requests
        answered by `sdk` instead of sent, and no waits between retries (provider rounds replay replies)."""
        return OpenAIChatClient(self.model, base_url=self.base_url, api_key=self._api_key, timeout_s=self.timeout_s,
                                max_attempts=self.max_attempts, temperature=self.temperature, cache=self.cache,
                                client=sdk, sleep=lambda _s: None, response_mode=self.mode if self._mode_fixed else None,
                                context_tokens=self._context_tokens if not self._discover else None)

    def sdk(self, max_retries: int = 2, min_timeout_s: float = 60.0) -> Any:
        """A fresh official client for this endpoint and key (the provider batch calls: files, batches)."""
        import openai

        return openai.OpenAI(api_key=self._api_key, base_url=self.base_url, max_retries=max_retries,
                             timeout=max(min_timeout_s, self.timeout_s))

    # -- the memo cache: read here, written only by `remember` after validation ------------------

    def _key(self, messages: list[dict], schema: dict, schema_name: str) -> str:
        return cache_key({"kind": "chat", "base_url": self.base_url or "", "model": self.model,
                          "temperature": self.temperature, "messages": messages,
                          "schema": schema, "schema_name": schema_name})

    def remember(self, key: str, text: str) -> None:
        if self.cache is not None and key:
            self.cache.put(key, {"text": text})

    def complete(self, messages: list[dict], schema: dict, schema_name: str, max_tokens: Optional[int] = None,
                 use_cache: bool = True) -> Completion:
        key = self._key(messages, schema, schema_name)
        if use_cache and self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return Completion(text=hit["text"], cached=True, requests=0, key=key)
        completion = self._call(messages, schema, schema_name, max_tokens)
        completion.key = key
        return completion

    # -- what the endpoint is and accepts -------------------------------------------------------

    def endpoint_info(self) -> dict:
        return {"response_format": self.mode, "context_tokens": self.context_tokens()}

    def context_tokens(self) -> Optional[int]:
        """The context size: set explicitly, else read once from the server (llama.cpp `/props` n_ctx,
        vLLM `/v1/models` max_model_len), else unknown (None)."""
        if self._discover and not self._discovered:
            with self._lock:
                if not self._discovered:
                    self._context_tokens = discover_context_tokens(self.base_url, self._api_key)
                    self._discovered = True
        return self._context_tokens

    # -- one call -------------------------------------------------------------------------------

    def _request(self, messages: list[dict], schema: dict, schema_name: str, max_tokens: Optional[int]) -> dict:
        mode = self.mode
        request: dict[str, Any] = {"model": self.model, "temperature": self.temperature, "timeout": self.timeout_s}
        if mode == "json_schema":
            request["response_format"] = {"type": "json_schema",
                                          "json_schema": {"name": schema_name, "schema": schema, "strict": True}}
        elif mode == "json_object_schema":
            request["response_format"] = {"type": "json_object", "schema": schema}
        elif mode == "json_object":
            request["response_format"] = {"type": "json_object"}
        if mode in ("json_object", "prompt"):
            messages = [dict(m) for m in messages]
            messages[0]["content"] += _SCHEMA_IN_PROMPT + json.dumps(schema, separators=(",", ":"))
        request["messages"] = messages
        if max_tokens:
            request[self._max_tokens_param] = max_tokens
        return request

    def _call(self, messages: list[dict], schema: dict, schema_name: str, max_tokens: Optional[int]) -> Completion:
        sent = failed = timeouts = attempt = 0
        while True:
            if self._fatal is not None:
                raise self._fatal
            mode = self.mode
            request = self._request(messages, schema, schema_name, max_tokens)
            try:
                with self._slots:
                    sent += 1
                    response = self._create(request)
            except Exception as exc:  # classified below
                failed += 1
                action = self._classify(exc, mode, attempt, timeouts)
                if action == "switched":
                    continue  # the same request in another format: not an attempt of its own
                if action == "timeout":
                    timeouts += 1
                if action in ("retry", "timeout") and attempt + 1 < self.max_attempts:
                    attempt += 1
                    self._sleep(self._backoff(attempt - 1, _retry_after(exc)))
                    continue
                raise self._failure(exc, sent, failed) from None
            self._succeeded = True
            choice = response.choices[0] if getattr(response, "choices", None) else None
            text = (choice.message.content if choice is not None else None) or ""
            usage = getattr(response, "usage", None)
            return Completion(text=text, prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                              completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                              requests=sent, failed=failed,
                              finish_reason=getattr(choice, "finish_reason", None) if choice is not None else None)

    def _create(self, request: dict) -> Any:
        """One request whose whole reply must arrive within `timeout_s`: the SDK's timeout bounds each read,
        so a server that drips its reply a byte at a time would otherwise hold a row for minutes. The body
        is read in chunks and the request abandoned (its connection closed) once the deadline passes."""
        completions = self._client.chat.completions
        streaming = getattr(completions, "with_streaming_response", None)
        if streaming is None:  # an injected client (recording fakes, the dry-run planner)
            return completions.create(**request)
        import openai

        deadline = time.monotonic() + self.timeout_s
        with streaming.create(**request) as raw:
            chunks = []
            for chunk in raw.iter_bytes():
                chunks.append(chunk)
                if time.monotonic() > deadline:
                    raise openai.APITimeoutError(request=raw.http_request)
        try:
            return json.loads(b"".join(chunks), object_hook=lambda d: SimpleNamespace(**d))
        except ValueError as exc:
            raise LLMCallError(f"the server's reply is not JSON ({exc})", kind="http") from None

    # Complex on purpose: one decision table from what the server did (a timeout, a lost connection, a refused
    # response format or token parameter, a refused key or model, a retryable status) to what the call does next;
    # split, the table would be read in pieces.
    def _classify(self, exc: Exception, mode: str, attempt: int, timeouts: int) -> str:
        """'switched' (format stepped down), 'timeout', 'retry', or 'fail'; sets the fatal error when no
        row can succeed with this configuration."""
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return "timeout" if timeouts == 0 else "fail"  # the same deterministic request timing out again
        if isinstance(exc, openai.APIConnectionError):
            return "retry"
        status = getattr(exc, "status_code", None)
        message = server_message(exc, self._api_key)
        if status in (400, 422, 500) and _MODE_REJECTED.search(message) and not is_overflow(message):
            with self._lock:
                if self.mode != mode:
                    return "switched"  # another thread already stepped down
                if not self._mode_fixed and mode != RESPONSE_MODES[-1]:
                    self.mode = RESPONSE_MODES[RESPONSE_MODES.index(mode) + 1]
                    return "switched"
        if status in (400, 422) and "max_completion_tokens" in message and self._max_tokens_param == "max_tokens":
            self._max_tokens_param = "max_completion_tokens"
            return "switched"
        if getattr(exc, "per_request", False):  # one request's answer inside a provider batch the provider took
            return "retry" if status in _RETRYABLE_STATUS else "fail"
        if status in (401, 403, 404) or (status in (400, 422) and not self._succeeded and not is_overflow(message)):
            with self._lock:
                if self._fatal is None:
                    self._fatal = JudgeFatalError(self._fatal_message(status, message))
            return "fail"
        return "retry" if status in _RETRYABLE_STATUS else "fail"

    def _fatal_message(self, status: int, message: str) -> str:
        where = self.base_url or "https://api.openai.com/v1 (default)"
        head = f"the endpoint {where} refused model {self.model!r} (HTTP {status}: {message})"
        if status in (401, 403):
            fix = ("its API key was rejected: set OPENAI_API_KEY (or --api-key, or the API key field in the app's "
                   "sidebar) to a key this endpoint accepts")
        elif status == 404:
            fix = ("check the model name (--model, RT4CHART_MODEL, the sidebar's Model field) and the base URL "
                   "(--base-url, OPENAI_BASE_URL; it usually ends in /v1)")
        else:
            fix = "the endpoint rejects rt4chart's requests before any succeeded: check the model and the endpoint"
        return f"{head}; {fix}. The run was stopped: no row could have been verified."

    def _failure(self, exc: Exception, sent: int, failed: int) -> Exception:
        if self._fatal is not None:
            return self._fatal
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return LLMCallError(f"no reply within {self.timeout_s:g} s ({sent} requests); raise the timeout if the "
                                "server is slow", sent, failed, "timeout")
        if isinstance(exc, openai.APIConnectionError):
            return LLMCallError(f"could not reach {self.base_url or 'the endpoint'} "
                                f"({redact(str(exc.__cause__ or exc), self._api_key)[:200]}; {sent} requests)",
                                sent, failed, "network")
        status = getattr(exc, "status_code", None)
        message = server_message(exc, self._api_key)
        if is_overflow(message):
            return LLMCallError(f"context overflow: the server says \"{message}\"; lower the window size, or raise "
                                "the context setting (--context-tokens) to the model's real context size",
                                sent, failed, "overflow")
        status_text = f"HTTP {status}: " if status else f"{type(exc).__name__}: "
        return LLMCallError(f"{status_text}{message} ({sent} requests)", sent, failed, "http")

    def _backoff(self, attempt: int, retry_after: Optional[float]) -> float:
        """Exponential backoff with full jitter; a server's Retry-After wins (capped at 60 s)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), 60.0)
        return self._random.uniform(0, min(30.0, 0.5 * 2 ** attempt))


def discover_context_tokens(base_url: Optional[str], api_key: Optional[str], timeout_s: float = 5.0) -> Optional[int]:
    """The model context size a local server reports, or None (OpenAI itself does not say)."""
    if not base_url or not base_url.startswith(("http://", "https://")):
        return None
    import urllib.error
    import urllib.request

    root = base_url.rstrip("/")
    root = root[:-3] if root.endswith("/v1") else root
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    for url, pick in ((f"{root}/props", _n_ctx_of_props), (f"{base_url.rstrip('/')}/models", _n_ctx_of_models)):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout_s) as reply:
                value = pick(json.loads(reply.read(1_000_000)))
            if value:
                return value
        except (urllib.error.URLError, OSError, ValueError):
            continue
    return None


def _n_ctx_of_props(data: Any) -> Optional[int]:
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings") or {}
    value = data.get("n_ctx") or (settings.get("n_ctx") if isinstance(settings, dict) else None)
    return int(value) if isinstance(value, (int, float)) and value > 0 else None


def _n_ctx_of_models(data: Any) -> Optional[int]:
    for model in (data.get("data") or []) if isinstance(data, dict) else []:
        if not isinstance(model, dict):
            continue
        meta = model["meta"] if isinstance(model.get("meta"), dict) else {}
        for value in (model.get("max_model_len"), model.get("context_length"), meta.get("n_ctx")):
            if isinstance(value, (int, float)) and value > 0:
                return int(value)
    return None
