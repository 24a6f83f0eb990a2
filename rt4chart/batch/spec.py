"""A batch's settings as one value: which judge and audit settings, which engine and how wide, which cache,
which column mapping, and where the run is stored. The CLI and the app build one and hand it to the engine,
instead of threading a dozen parameters through every signature."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from rt4chart.core.config import AuditConfig
from rt4chart.core.errors import InputError
from rt4chart.core.version import __version__
from rt4chart.judges.base import Judge
from rt4chart.judges.cache import MemoCache

if TYPE_CHECKING:
    from rt4chart.store.store import Store

ENGINES = ("local", "dask")


@dataclass(frozen=True)
class RunSpec:
    judge: Judge
    config: AuditConfig = field(default_factory=AuditConfig)
    workers: int = 1
    cache: Optional[MemoCache] = None
    mapping: Optional[dict] = None          # role -> column (context, answer, question, id, gold, groups, …)
    delimiter: Optional[str] = None
    engine: str = "local"
    dask_address: Optional[str] = None
    partition_rows: Optional[int] = None
    store: Optional["Store"] = None          # keep the run here
    run_name: Optional[str] = None
    source: Optional[str] = None             # where the rows came from, as the run store shows it (else the input path)

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise InputError(f"unknown engine {self.engine!r}; choose one of: {', '.join(ENGINES)}")

    def settings(self) -> dict:
        """What makes two runs the same run (resume, fingerprint): never the key, the store or the width."""
        return {"version": __version__, "judge": self.judge.name, "model": self.judge.model,
                "judge_settings": self.judge.settings(), "config": self.config.model_dump()}
