"""A judge as a value: its registered name and the options that rebuild it, never a secret. Engines that audit
away from the driver (worker processes, Dask workers, the app's batch jobs) receive a `JudgeSpec` and build
the judge from it; the secrets travel beside it (`secrets_of`), through memory or the environment only."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional

from rt4chart.core.errors import JudgeConfigError
from rt4chart.judges.registry import registration

if TYPE_CHECKING:
    from rt4chart.judges.base import Judge

SECRET_OPTIONS = ("api_key",)


@dataclass(frozen=True)
class JudgeSpec:
    """`kind` is a registered judge name; `options_json` its options as canonical JSON (sorted keys), so that
    a spec is hashable (a worker builds each judge once) and two equal specs are the same text."""

    kind: str
    options_json: str = "{}"

    def __post_init__(self) -> None:
        registration(self.kind)  # an unknown name is refused here, where the spec enters
        options = json.loads(self.options_json)
        if not isinstance(options, dict):
            raise JudgeConfigError(f"a {self.kind} judge's options must be a JSON object, not {type(options).__name__}")
        leaked = sorted(k for k in options if k in SECRET_OPTIONS)
        if leaked:
            raise JudgeConfigError(f"a judge spec never holds secrets ({', '.join(leaked)}); pass them as secrets")

    @classmethod
    def of(cls, judge: "Judge") -> "JudgeSpec":
        """The spec that rebuilds `judge` (NotImplementedError for a judge that cannot be rebuilt elsewhere)."""
        return cls.make(judge.name, judge.rebuild_options())

    @classmethod
    def make(cls, kind: str, options: Optional[Mapping[str, Any]] = None) -> "JudgeSpec":
        return cls(kind, json.dumps(dict(options or {}), sort_keys=True))

    @classmethod
    def from_json(cls, text: str) -> "JudgeSpec":
        """A spec written by `to_json`; anything else is a JudgeConfigError saying what is wrong."""
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise JudgeConfigError(f"a judge spec must be JSON ({exc})") from None
        if not isinstance(value, dict) or not isinstance(value.get("kind"), str) \
                or not isinstance(value.get("options", {}), dict):
            raise JudgeConfigError('a judge spec is {"kind": NAME, "options": {...}}')
        return cls.make(value["kind"], value.get("options"))

    @property
    def options(self) -> dict[str, Any]:
        return json.loads(self.options_json)

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "options": self.options}, sort_keys=True)

    def build(self, secrets: Optional[Mapping[str, str]] = None) -> "Judge":
        """The judge, with `secrets` (e.g. the API key) added to its options."""
        options = self.options
        options.update({k: v for k, v in (secrets or {}).items() if k in SECRET_OPTIONS and v})
        return registration(self.kind).build(**options)


def secrets_of(judge: "Judge") -> dict[str, str]:
    """The secrets `judge` was built with, to hand to an engine beside its spec (never written anywhere)."""
    return {k: v for k, v in judge.secret_options().items() if k in SECRET_OPTIONS and v}
