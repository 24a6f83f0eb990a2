"""rt4chart: audit RAG answers for hallucinations by tracing every claim back to the context."""
__version__ = "0.1.0"

from .types import AuditReport, Claim, ClaimResult, Evidence, Span, Verdict  # noqa: E402

__all__ = ["__version__", "audit", "AuditReport", "Claim", "ClaimResult", "Evidence", "Span", "Verdict"]


def audit(*args, **kwargs) -> AuditReport:
    """Audit one answer; see `rt4chart.pipeline.audit`."""
    from .pipeline import audit as _audit

    return _audit(*args, **kwargs)
