"""One structured-output exchange with a chat client: a call, validation against a pydantic model,
and at most one repair. Failures come back as a reason, never as a result, and are never cached.

- A reply that is not valid JSON, breaks the schema or fails `check` gets one repair re-ask (the reply
  and the problem are shown to the model).
- A reply cut off at its token budget (`finish_reason == "length"`) is asked again once with twice the
  budget, as a fresh request (appending a cut-off reply would only grow the prompt).
- Only a validated reply is stored in the memo cache, under the key of the first request, so a re-run
  of the same audit makes no call; a cached reply that no longer validates is asked for again.
- The failure reason keeps the first failure's cause when the repair fails too.
"""
from __future__ import annotations

import json
from typing import Callable, Optional, TypeVar

from pydantic import BaseModel, ValidationError

from rt4chart.core.cost import Cost
from rt4chart.core.errors import LLMCallError
from rt4chart.judges.llm import prompts
from rt4chart.judges.llm.client import ChatClient, Completion

T = TypeVar("T", bound=BaseModel)


def _parse(completion: Completion, model: type[T], check: Callable[[T], Optional[str]],
           budget: Optional[int]) -> tuple[Optional[T], str]:
    if completion.truncated:
        return None, (f"the reply was cut off at its token budget ({budget} tokens, finish_reason=length)"
                      if budget else "the reply was cut off (finish_reason=length)")
    try:
        parsed = model.model_validate(json.loads(completion.text))
    except (json.JSONDecodeError, ValidationError) as exc:
        return None, f"invalid JSON reply ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})"
    problem = check(parsed)
    return (None, problem) if problem else (parsed, "")


def _both(first: str, second: str) -> str:
    return f"{first}; the repair failed too: {second}" if first else second


def ask(client: ChatClient, prompt: str, schema: dict, schema_name: str, model: type[T], usage: Cost,
        check: Callable[[T], Optional[str]] = lambda _: None, system: Optional[str] = None,
        max_tokens: Optional[int] = None) -> tuple[Optional[T], str]:
    """Returns (parsed reply, "") or (None, failure reason). Every request sent is counted in `usage`
    (failed ones in `failed_calls` too; unusable replies count as failed); cached calls apart."""
    messages = [{"role": "system", "content": system or prompts.load("system")}, {"role": "user", "content": prompt}]
    first_key, first_failure, budget = "", "", max_tokens
    use_cache, repaired = True, False
    while True:
        try:
            completion = client.complete(messages, schema, schema_name, max_tokens=budget, use_cache=use_cache)
        except LLMCallError as exc:
            usage += Cost(calls=exc.requests, failed_calls=exc.failed)
            return None, _both(first_failure, f"judge call failed: {exc.reason}")
        usage += completion.cost
        first_key = first_key or completion.key
        parsed, problem = _parse(completion, model, check, budget)
        if parsed is not None:
            if not completion.cached:
                client.remember(first_key, completion.text)
            return parsed, ""
        if completion.cached:  # a stored reply that no longer validates: ask the endpoint instead
            use_cache = False
            continue
        usage.failed_calls += 1
        if repaired:
            return None, _both(first_failure, problem)
        first_failure, repaired = problem, True
        if completion.truncated:
            budget = budget * 2 if budget else None
        else:
            messages = messages + [{"role": "assistant", "content": completion.text},
                                   {"role": "user", "content": prompts.render("repair", error=problem)}]
