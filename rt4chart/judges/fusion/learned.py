"""A learned fusion file read and applied: standardised logistic regression over `signals.features`, with the
claim threshold and the answer calibration it was fitted with. Plain JSON and plain arithmetic: no
scikit-learn at run time (benchmarks/fit_fusion.py fits and writes the file)."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from rt4chart.core.errors import JudgeConfigError


@dataclass(frozen=True)
class Contribution:
    """How far one feature moved a claim's logit from the average claim's."""

    feature: str
    value: float
    logit: float


@dataclass(frozen=True)
class LearnedFusion:
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float                        # P(hallucinated) from which a claim is flagged
    answer_calibration: tuple[float, float]  # Platt (a, b) of the answer's aggregated score
    digest: str

    @classmethod
    def load(cls, path: Path) -> "LearnedFusion":
        """Read and check a fusion file; a wrong one is refused in one line."""
        try:
            raw = path.read_text(encoding="utf-8")
            data = json.loads(raw)
            names = tuple(str(f) for f in data["features"])
            fields = [tuple(float(x) for x in data[k]) for k in ("mean", "scale", "coef")]
            fusion = cls(features=names, mean=fields[0], scale=fields[1], coef=fields[2],
                         intercept=float(data["intercept"]), threshold=float(data["threshold"]),
                         answer_calibration=(float(data["answer_calibration"][0]), float(data["answer_calibration"][1])),
                         digest=str(data.get("digest", "")))
        except FileNotFoundError:
            raise JudgeConfigError(f"no fusion file at {path}") from None
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise JudgeConfigError(f"{path} is not a fusion file ({type(exc).__name__}: {exc})") from None
        from rt4chart.judges.fusion.signals import SIGNALS

        unknown = sorted({part for f in names for part in f.split("*")} - set(SIGNALS))
        if unknown:
            raise JudgeConfigError(f"{path} needs signals this version does not measure: {', '.join(unknown)}")
        if not all(len(f) == len(names) for f in fields) or not names:
            raise JudgeConfigError(f"{path}: features, mean, scale and coef differ in length")
        if not all(math.isfinite(x) for f in fields for x in f) or any(s <= 0 for s in fusion.scale):
            raise JudgeConfigError(f"{path}: a coefficient is not finite or a scale is not positive")
        if not 0.0 < fusion.threshold < 1.0:
            raise JudgeConfigError(f"{path}: threshold {fusion.threshold} is not in (0, 1)")
        return fusion

    def contributions(self, x: dict[str, float]) -> list[Contribution]:
        values = [value_of(f, x) for f in self.features]
        return [Contribution(f, v, c * (v - m) / s)
                for f, v, m, s, c in zip(self.features, values, self.mean, self.scale, self.coef)]

    def probability(self, x: dict[str, float]) -> float:
        """P(hallucinated) of a claim with features `x` (the sum `contributions` itemises)."""
        z = self.intercept + sum(c * (value_of(f, x) - m) / s
                                 for f, m, s, c in zip(self.features, self.mean, self.scale, self.coef))
        return _sigmoid(z)

    def raw_score(self, p: float) -> float:
        """The pipeline's claim score: 0.5 exactly on the threshold, monotone in p."""
        return shifted(p, self.threshold)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def shifted(p: float, threshold: float) -> float:
    """`p` moved so that `threshold` lands on 0.5 (a logit shift), the boundary of the pipeline's claim scores."""
    p = min(max(p, 1e-9), 1 - 1e-9)
    return _sigmoid(math.log(p / (1 - p)) - math.log(threshold / (1 - threshold)))


def value_of(feature: str, x: dict[str, float]) -> float:
    """A feature's value: a signal, or 'a*b', the product of two (how much a reading counts can depend on the
    context's length or on whether a question was asked)."""
    try:
        if "*" in feature:
            left, _, right = feature.partition("*")
            return x[left] * x[right]
        return x[feature]
    except KeyError as exc:
        raise ValueError(f"the fusion file needs signal {exc.args[0]!r}, which this version does not measure") from None


_LOADED: dict[str, LearnedFusion] = {}


def fusion_of(name: str) -> LearnedFusion:
    """The fusion file at a path, read once per process."""
    path = Path(name)
    key = str(path.resolve())
    if key not in _LOADED:
        _LOADED[key] = LearnedFusion.load(path)
    return _LOADED[key]
