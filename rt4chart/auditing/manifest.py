"""The one place a run's manifest is made: what reproduces a result (version, judge, model, audit and judge
settings, the threshold in use, the segmenter, prompt hashes, what the endpoint accepted)."""
from __future__ import annotations

from typing import Optional

from rt4chart.auditing.scores import boundary, shown_threshold
from rt4chart.core.config import AuditConfig
from rt4chart.core.types import Manifest
from rt4chart.core.version import METHOD_REVISION, __version__
from rt4chart.judges.base import Judge
from rt4chart.text.segment import segmenter_name


def threshold_of(judge: Judge, config: AuditConfig) -> float:
    """The answer-score threshold in use: the configured one, else the judge's own boundary."""
    return config.threshold if config.threshold is not None else boundary(judge.score_calibration())


def manifest_of(judge: Judge, config: Optional[AuditConfig] = None, threshold: Optional[float] = None) -> Manifest:
    config = config or AuditConfig()
    return Manifest(rt4chart_version=__version__, judge=judge.name, model=judge.model,
                    settings={"audit": config.model_dump(), "judge": judge.settings(),
                              "threshold": shown_threshold(threshold if threshold is not None
                                                           else threshold_of(judge, config)),
                              "segmenter": segmenter_name(), "method": METHOD_REVISION},
                    prompt_hashes=judge.prompt_hashes(), endpoint=judge.endpoint_info())
