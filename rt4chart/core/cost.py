"""One value for what judging cost — requests, tokens and a local model's reading — that adds up with `+`.
Every report that states a cost holds a `Cost`; the wire formats keep their flat keys (`wire_keys`)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Iterable, Mapping


@dataclass
class Cost:
    """`calls` counts every request sent (retries and failures included), `failed_calls` the failed or
    unusable ones; `cached_calls` were answered from the memo cache and sent nothing. `model_pairs` and
    `model_tokens` are the (text, claim) pairs a local model read and their tokens (cached pairs not counted)."""

    calls: int = 0
    failed_calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_pairs: int = 0
    model_tokens: int = 0

    def __add__(self, other: Cost) -> Cost:
        return Cost(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def __iadd__(self, other: Cost) -> Cost:
        """In place: a judge charges the one `Cost` its audit passes down."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_cached(self) -> Cost:
        """The same answers served from the cache now: every request becomes a cached call, nothing is spent."""
        return Cost(cached_calls=self.cached_calls + self.calls, model_pairs=self.model_pairs,
                    model_tokens=self.model_tokens)

    @staticmethod
    def total(costs: Iterable[Cost]) -> Cost:
        out = Cost()
        for cost in costs:
            out += cost
        return out


def folded(data: Any, wire: Mapping[str, str]) -> Any:
    """A model's input with its flat cost keys (wire key -> Cost field) gathered into `cost`: what was
    written before the cost was one value reads as it always did."""
    if not isinstance(data, dict) or "cost" in data or not any(k in data for k in wire):
        return data
    rest = {k: v for k, v in data.items() if k not in wire}
    rest["cost"] = Cost(**{field: data[key] for key, field in wire.items() if key in data})
    return rest


def unfolded(dumped: dict, wire: Mapping[str, str], order: Iterable[str]) -> dict:
    """A dumped model with its `cost` spread back into the flat keys, in the wire's key `order` (the
    keys a dump excluded stay out)."""
    cost = dumped.pop("cost", None)
    if cost is not None:
        get = cost.get if isinstance(cost, dict) else lambda name: getattr(cost, name)
        dumped.update({key: get(field) for key, field in wire.items()})
    return {k: dumped[k] for k in order if k in dumped} | {k: v for k, v in dumped.items() if k not in order}
