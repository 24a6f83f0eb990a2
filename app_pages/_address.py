"""The session's own settings in the page address, so a reload (or a shared link) brings them back, whatever
other sessions or the CLI write to a shared run store. Only settings that hold no secret go there: never the
API key, the endpoint URL (it may carry credentials) or the reviewer's name."""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st
from pydantic import ValidationError

from app_pages import state
from rt4chart.core.config import AuditConfig
from rt4chart.judges.registry import judge_names


def _flag(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError(text)
    return text == "1"


def _judge(text: str) -> str:
    if text not in judge_names():
        raise ValueError(text)
    return text


# address parameter -> (setting, parse); a setting at its default is left out of the address
PARAMS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "window": ("window_size", int), "stride": ("window_stride", int), "per_claim": ("windows_per_claim", int),
    "judge": ("judge", _judge), "threshold": ("threshold", float), "rounds": ("max_rounds", int),
    "reflect": ("reflect", _flag),
}


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def restore_settings() -> None:
    """Once per browser session, after a reopened run's settings: the settings the address names (what this
    session had before the reload) become the session's; values that do not parse or validate are ignored."""
    if not state.first_time(state.ADDRESS_READ):
        return
    wanted: dict[str, Any] = {}
    for param, (name, parse) in PARAMS.items():
        raw = st.query_params.get(param)
        if raw is None:
            continue
        try:
            wanted[name] = parse(raw)
        except ValueError:
            continue
    if not wanted:
        return
    s = state.settings()
    candidate = {**s, **wanted}
    try:
        AuditConfig(window_size=int(candidate["window_size"]), window_stride=int(candidate["window_stride"]),
                    windows_per_claim=int(candidate["windows_per_claim"]), max_rounds=int(candidate["max_rounds"]),
                    threshold=float(candidate["threshold"]) if "threshold" in wanted else None)
    except (ValidationError, ValueError):
        return  # a hand-edited address with impossible settings: keep the ones in effect
    s.update(wanted)
    s["custom_threshold"] = "threshold" in wanted
    for name in list(s):
        state.forget_widget(f"w.{name}")  # widgets start again from the restored values


def keep_settings() -> None:
    """The settings that differ from the defaults, in the address (the others removed from it)."""
    s = state.settings()
    for param, (name, _parse) in PARAMS.items():
        value = s.get(name)
        default = state.DEFAULTS.get(name)
        if name == "threshold":
            keep = bool(s.get("custom_threshold"))
        else:
            keep = value != default
        if keep and value is not None:
            if st.query_params.get(param) != _shown(value):
                st.query_params[param] = _shown(value)
        elif param in st.query_params:
            del st.query_params[param]
