"""One structured-output exchange with a chat client: a call, validation against a pydantic model,
and at most one repair re-ask. Failures come back as a reason, never as a result."""
from __future__ import annotations

import json
from typing import Callable, Optional, TypeVar

from pydantic import BaseModel, ValidationError

from .. import prompts
from .base import Usage
from .llm_client import ChatClient, LLMCallError

T = TypeVar("T", bound=BaseModel)


def ask(client: ChatClient, prompt: str, schema: dict, schema_name: str, model: type[T], usage: Usage,
        check: Callable[[T], Optional[str]] = lambda _: None,
        system: Optional[str] = None) -> tuple[Optional[T], str]:
    """Returns (parsed reply, "") or (None, failure reason). Usage is counted (cached calls apart)."""
    messages = [{"role": "system", "content": system or prompts.load("system")}, {"role": "user", "content": prompt}]
    error = ""
    for attempt in range(2):
        try:
            completion = client.complete(messages, schema, schema_name)
        except LLMCallError as exc:
            return None, f"judge call failed: {exc}"
        if completion.cached:
            usage.cached_calls += 1
        else:
            usage.calls += 1
            usage.prompt_tokens += completion.prompt_tokens
            usage.completion_tokens += completion.completion_tokens
        try:
            parsed = model.model_validate(json.loads(completion.text))
            error = check(parsed) or ""
            if not error:
                return parsed, ""
        except (json.JSONDecodeError, ValidationError) as exc:
            error = f"invalid JSON reply ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})"
        if attempt == 0:
            messages = messages + [{"role": "assistant", "content": completion.text},
                                   {"role": "user", "content": prompts.render("repair", error=error)}]
    return None, error
