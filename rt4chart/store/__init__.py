"""The run store: batch audits kept as runs, compared, and reviewed by analysts.

One narrow API for the CLI and the app; only `store.store` and `store.schema` import SQLAlchemy.
"""
from rt4chart.store.analysis import Agreement, Comparison, agreement, compare, label_records, mcnemar_p
from rt4chart.store.rows import StoredRow, match_key, pack, unpack_report
from rt4chart.store.store import Review, RunInfo, Store, default_url, safe_url
from rt4chart.store.writer import RunWriter

__all__ = ["Agreement", "Comparison", "Review", "RunInfo", "RunWriter", "Store", "StoredRow", "agreement",
           "compare", "default_url", "label_records", "match_key", "mcnemar_p", "pack", "safe_url",
           "unpack_report"]
