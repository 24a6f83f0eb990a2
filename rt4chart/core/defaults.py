"""Default settings of an audit, as plain values (light: the CLI's parser shows them without pydantic).
Why these values: `rt4chart.core.config.AuditConfig`."""
from __future__ import annotations

WINDOW_SIZE = 8
WINDOW_STRIDE = 4
WINDOWS_PER_CLAIM = 3
MAX_ROUNDS = 3
AUTO_WORKERS = 0  # `--workers auto`, the CLI's default: the machine and the rows decide (`batch.cores.auto_workers`)
THRESHOLD = None  # the judge's own calibrated boundary
# the judge the app and the CLI use unless told: the best mean balanced accuracy on the two long-context dev files
# (ragtruth, faithbench) among the judges that audit one answer in under 2 s (issue #37; docs/benchmarks.md)
JUDGE = "hybrid"
