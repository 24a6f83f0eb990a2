"""Judges decompose answers and verify claims; all share the interface in `base`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rt4chart.core.cost import Cost
    from rt4chart.judges.base import AuditInput, Judge, Judgement

__all__ = ["AuditInput", "Cost", "Judge", "Judgement"]


def __getattr__(name: str) -> Any:
    """The judges' interface, imported on first use (`rt4chart.judges.names` stays light)."""
    if name in __all__:
        from rt4chart.judges import base

        return getattr(base, name)
    raise AttributeError(f"module 'rt4chart.judges' has no attribute {name!r}")
