"""rt4chart: audit RAG answers for hallucinations by tracing every claim back to the context."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rt4chart.core.version import __version__

if TYPE_CHECKING:
    from rt4chart.core.types import AuditReport, Claim, ClaimResult, Evidence, Span, Verdict

__all__ = ["__version__", "audit", "AuditReport", "Claim", "ClaimResult", "Evidence", "Span", "Verdict"]
_TYPES = {"AuditReport", "Claim", "ClaimResult", "Evidence", "Span", "Verdict"}


def __getattr__(name: str) -> Any:
    """The report's types, imported on first use (pydantic stays out of `rt4chart --help`)."""
    if name in _TYPES:
        from rt4chart.core import types

        return getattr(types, name)
    raise AttributeError(f"module 'rt4chart' has no attribute {name!r}")


def audit(*args, **kwargs) -> AuditReport:
    """Audit one answer; see `rt4chart.auditing.pipeline.audit`."""
    from rt4chart.auditing.pipeline import audit as _audit

    return _audit(*args, **kwargs)
