"""rt4chart: audit RAG answers for hallucinations by tracing every claim back to the context."""
from rt4chart.core.types import AuditReport, Claim, ClaimResult, Evidence, Span, Verdict
from rt4chart.core.version import __version__

__all__ = ["__version__", "audit", "AuditReport", "Claim", "ClaimResult", "Evidence", "Span", "Verdict"]


def audit(*args, **kwargs) -> AuditReport:
    """Audit one answer; see `rt4chart.auditing.pipeline.audit`."""
    from rt4chart.auditing.pipeline import audit as _audit

    return _audit(*args, **kwargs)
