"""The one owner of the app's session state.

Streamlit drops a widget's key when its page is not shown, so every value that must cross pages
(settings, the dataset, its column mapping, the audit results, the selected row) lives under a key
that no widget owns. A widget gets its value from there before it is drawn (`bind`) and writes back
through `on_change`. A dataset is identified by the hash of its bytes: a new dataset replaces the
mapping, the results and the selection; the same bytes under another name change nothing.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import streamlit as st

from rt4chart.core import defaults
from rt4chart.core.config import AuditConfig
from rt4chart.judges.registry import judge_names
from rt4chart.reporting.printable import printable_row

SETTINGS = "rt4.settings"
DATASET = "rt4.dataset"
RESULTS = "rt4.results"
DRILL = "rt4.drill"
AUDIT = "rt4.audit"

_DEFAULT_CONFIG = AuditConfig()
DEFAULTS: dict[str, Any] = {
    "window_size": _DEFAULT_CONFIG.window_size, "window_stride": _DEFAULT_CONFIG.window_stride,
    "windows_per_claim": _DEFAULT_CONFIG.windows_per_claim,
    "judge": defaults.JUDGE, "checkpoint": "", "base_url": "", "model": "", "api_key": "", "timeout_s": 60.0, "max_attempts": 4,
    "context_tokens": 0, "reflect": False, "max_rounds": _DEFAULT_CONFIG.max_rounds, "reviewer": "",
    "delimiter": "by extension", "custom_threshold": False, "threshold": 0.5,
}


def settings() -> dict[str, Any]:
    """The session's settings (defaults until changed); the same dict on every page."""
    if SETTINGS not in st.session_state:
        st.session_state[SETTINGS] = dict(DEFAULTS)
    return st.session_state[SETTINGS]


def bind(name: str, widget_key: Optional[str] = None, store: Optional[Callable[[], dict]] = None,
         default: Any = None) -> dict:
    """Keyword arguments that tie a widget to `name` in a store (the settings by default): the widget
    starts from the stored value and writes every change back, so the value outlives the page."""
    key = widget_key or f"w.{name}"
    target = (store or settings)()
    if key not in st.session_state:
        value = target.get(name, DEFAULTS.get(name))
        st.session_state[key] = default if value is None else value

    def write_back() -> None:
        if key in st.session_state:  # a key dropped meanwhile (settings adopted from a run) has nothing to write
            (store or settings)()[name] = st.session_state[key]

    return {"key": key, "on_change": write_back}


def adopt_run_settings(manifest: dict) -> None:
    """A reopened run's settings become the session's (windows, threshold, judge), so the page never shows
    one set of settings above results made with another, and the next run uses what is shown. Widgets
    bound to them start again from the adopted values."""
    audit = (manifest.get("settings") or {}).get("audit") or {}
    s = settings()
    for name in ("window_size", "window_stride", "windows_per_claim", "max_rounds"):
        if isinstance(audit.get(name), int):
            s[name] = audit[name]
    if audit.get("threshold") is not None:
        s["custom_threshold"], s["threshold"] = True, float(audit["threshold"])
    else:
        s["custom_threshold"] = False
    if manifest.get("judge") in judge_names():
        s["judge"] = manifest["judge"]
    for name in list(s):
        st.session_state.pop(f"w.{name}", None)


def audit_config() -> AuditConfig:
    """Window settings chosen on the Settings page; reflection from the sidebar (LLM judges only)."""
    s = settings()
    return AuditConfig(window_size=int(s["window_size"]), window_stride=int(s["window_stride"]),
                       windows_per_claim=int(s["windows_per_claim"]),
                       reflect=bool(s["reflect"]) and s["judge"] == "openai", max_rounds=int(s["max_rounds"]),
                       threshold=float(s["threshold"]) if s.get("custom_threshold") else None)


# The settings that can change a verdict, with the words a page uses for them. The threshold is not one: it moves
# the flags, and every banner counts by the threshold in force. The key and the endpoint's address are not shown.
VERDICT_SETTINGS = {"judge": "judge", "checkpoint": "checkpoint", "model": "model", "base_url": "endpoint",
                    "window_size": "window size", "window_stride": "window stride",
                    "windows_per_claim": "windows per claim", "reflect": "self-reflection",
                    "max_rounds": "reflection rounds"}
_NOT_SHOWN = {"base_url"}


def verdict_settings() -> dict[str, Any]:
    """The session's settings that a result depends on (kept with a result to tell when it is stale)."""
    s = settings()
    return {k: s.get(k, DEFAULTS.get(k)) for k in VERDICT_SETTINGS}


_JUDGE_OWN = {"checkpoint": ("model", "hybrid"), "model": ("openai",), "base_url": ("openai",),
              "reflect": ("openai",), "max_rounds": ("openai",)}


def changed_since(made_with: dict[str, Any]) -> list[str]:
    """What changed in the verdict settings since a result was made ('judge: hybrid → offline', 'endpoint'); a
    judge's own setting only where that judge made the result or would make the next one."""
    now = verdict_settings()
    judges = {made_with.get("judge"), now["judge"]}
    return [VERDICT_SETTINGS[k] if k in _NOT_SHOWN else f"{VERDICT_SETTINGS[k]}: {made_with.get(k) or '—'} → "
            f"{now[k] or '—'}" for k in VERDICT_SETTINGS
            if made_with.get(k) != now[k] and (k not in _JUDGE_OWN or judges & set(_JUDGE_OWN[k]))]


def audit_inputs() -> dict:
    """The single-audit page's texts (context, answer, question) and its last report."""
    if AUDIT not in st.session_state:
        st.session_state[AUDIT] = {"context": "", "answer": "", "question": "", "report": None}
    return st.session_state[AUDIT]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Dataset:
    """A loaded table: where it came from, its bytes' hash, its rows, and the role -> column mapping."""

    name: str
    digest: str
    columns: list[str]
    rows: list[dict]
    mapping: dict[str, Any] = field(default_factory=dict)
    run_id: Optional[str] = None  # set when the dataset is a run reopened from the store
    data: Optional[bytes] = field(default=None, repr=False)  # the upload's bytes: a batch job reads exactly these
    delimiter: Optional[str] = None  # the delimiter the upload was read with (None: by extension)


def dataset() -> Optional[Dataset]:
    return st.session_state.get(DATASET)


def clear_dataset() -> Optional[Dataset]:
    """Close the dataset and its results (a refused upload must not leave the previous file ready to run);
    returns the dataset that was open."""
    old = dataset()
    for key in (DATASET, RESULTS, DRILL):
        st.session_state.pop(key, None)
    return old


def set_dataset(new: Dataset) -> bool:
    """Make `new` the dataset; returns True when it replaced another one (results and selection reset).
    The same content again (e.g. a re-upload under another name) keeps everything."""
    current = dataset()
    if current is not None and current.digest == new.digest:
        return False
    st.session_state[DATASET] = new
    st.session_state.pop(RESULTS, None)
    st.session_state.pop(DRILL, None)
    for key in [k for k in st.session_state if str(k).startswith(("w.map.", "w.filter.", "w.drill"))]:
        del st.session_state[key]
    return True


@dataclass
class Results:
    """The audit of a dataset: flat result rows, reports by row id, and how they were made."""

    digest: str
    rows: list[dict]
    reports: dict[str, Any]
    mapping: dict[str, Any]
    answers: dict[str, str]
    texts: dict[str, dict] = field(default_factory=dict)   # id -> question, context, answer (for exports)
    manifest: dict = field(default_factory=dict)
    filters: dict[str, Any] = field(default_factory=dict)  # the batch page's filter boxes
    run_id: Optional[str] = None


def results() -> Optional[Results]:
    """The results of the current dataset (never those of another dataset)."""
    found = st.session_state.get(RESULTS)
    current = dataset()
    if found is None or current is None or found.digest != current.digest:
        return None
    return found


def set_results(new: Results) -> None:
    """The session's results; their rows are shown in tables, so lone surrogates become escapes here."""
    new.rows = [printable_row(r) for r in new.rows]
    st.session_state[RESULTS] = new
    st.session_state.pop(DRILL, None)


def drill() -> Optional[str]:
    return st.session_state.get(DRILL)


def set_drill(row_id: Optional[str]) -> None:
    st.session_state[DRILL] = row_id


JOB = "rt4.job"


def watched_job() -> Optional[dict]:
    """The batch job this session started and waits for: {"id", "digest", "mapping"} (the dataset it audits)."""
    return st.session_state.get(JOB)


def set_watched_job(job: Optional[dict]) -> None:
    if job is None:
        st.session_state.pop(JOB, None)
    else:
        st.session_state[JOB] = job


# Notices that outlive one script run (a callback's outcome, shown once by the next run of the page).
KEPT_AUDIT_NOTICE = "rt4.audit.kept"
JOB_NOTICE = "rt4.job_notice"
BATCH_NOTICE = "rt4.batch_notice"
SAME_RUN_NOTICE = "rt4.same_run"
RECOGNISED_NOTICE = "rt4.recognised"
STORE_ERROR = "rt4.store_error"
REOPENED = "rt4.reopened"


def say(notice: str, value: Any) -> None:
    """Keep `value` (a message, or (kind, message)) for the next run of the page to show once."""
    st.session_state[notice] = value


def has_notice(notice: str) -> bool:
    return bool(st.session_state.get(notice))


def take_notice(notice: str) -> Any:
    """The kept notice, removed (None when there is none)."""
    return st.session_state.pop(notice, None)


# Things a session does once (read the address, reopen the run it names, adopt the row it names).
ADDRESS_READ = "rt4.address_read"
REOPEN_TRIED = "rt4.reopen_tried"
ROW_ADOPTED = "rt4.row_adopted"


def first_time(what: str) -> bool:
    """True the first time this session asks about `what`, False afterwards."""
    if st.session_state.get(what):
        return False
    st.session_state[what] = True
    return True


# Values a page keeps between its runs (not settings: they are not shared and not restored from a run).
UPLOAD_SEEN = "rt4.upload_seen"
REVIEWER_KEPT = "rt4.reviewer_kept"
INSIGHT_PATTERNS = "insights.patterns"
INSIGHTS_REPORT = "insights.report"
INSIGHTS_TASK = "insights.task"   # the key of the action items' background task this session waits for


def kept(name: str, default: Any = None) -> Any:
    return st.session_state.get(name, default)


def keep(name: str, value: Any) -> None:
    st.session_state[name] = value


# Widgets: a page draws a widget with `key=`; what it holds is read and set here.
def has_widget(key: str) -> bool:
    return key in st.session_state


def widget(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def set_widget(key: str, value: Any) -> None:
    st.session_state[key] = value


def forget_widget(key: str) -> None:
    """The widget starts again from its bound value the next time it is drawn."""
    st.session_state.pop(key, None)


def close_dataset_and_results() -> None:
    """The session's dataset and results go (their run was deleted)."""
    st.session_state.pop(RESULTS, None)
    st.session_state.pop(DATASET, None)
