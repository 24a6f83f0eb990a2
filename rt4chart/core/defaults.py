"""Default settings of an audit, as plain values (light: the CLI's parser shows them without pydantic).
Why these values: `rt4chart.core.config.AuditConfig`."""
from __future__ import annotations

WINDOW_SIZE = 8
WINDOW_STRIDE = 4
WINDOWS_PER_CLAIM = 3
MAX_ROUNDS = 3
THRESHOLD = None  # the judge's own calibrated boundary
