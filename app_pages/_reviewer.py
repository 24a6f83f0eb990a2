"""Who reviews: the name the analyst gives, never the server's account. It is kept in the analyst's own browser (a
first-party cookie, read back on the next visit), never in the address or on the server's disk."""
from __future__ import annotations

import json
import urllib.parse

import streamlit as st

from app_pages import state

COOKIE = "rt4chart_reviewer"
MAX_CHARS = 80


def clean(name: object) -> str:
    """A reviewer name as it is recorded: printable, single-spaced, at most MAX_CHARS."""
    text = " ".join("".join(c for c in str(name or "") if c.isprintable()).split())
    return text[:MAX_CHARS]


def name() -> str:
    """The session's reviewer: the name typed in this session, else the one this browser kept, else ''."""
    s = state.settings()
    if not s.get("reviewer"):
        try:
            kept = st.context.cookies.get(COOKIE)
        except (AttributeError, RuntimeError):  # no browser behind this run (bare mode)
            kept = None
        if isinstance(kept, str) and kept:
            s["reviewer"] = clean(urllib.parse.unquote(kept))
    return clean(s.get("reviewer"))


def keep_in_browser() -> None:
    """Write the name into this browser's cookie when it changed (a zero-height component runs the one line)."""
    current = name()
    if not current or state.kept(state.REVIEWER_KEPT) == current:
        return
    state.keep(state.REVIEWER_KEPT, current)
    value = json.dumps(urllib.parse.quote(current)).replace("<", "\\u003c")
    from app_pages._shared import run_in_page

    run_in_page(f"parent.document.cookie = '{COOKIE}=' + {value} + '; path=/; max-age=31536000; SameSite=Strict';")


def field(key: str, label: str = "Reviewer name") -> None:
    """The text box for the name (kept across reloads in this browser); every box shows the name last given."""
    given = state.settings().get("reviewer") or ""
    if state.has_widget(key) and state.widget(key) != given:
        state.set_widget(key, given)  # given in another box (the review panel's, the sidebar's)
    st.text_input(label, **state.bind("reviewer", key), max_chars=MAX_CHARS,
                  help="Recorded with your reviews; kept in this browser, never taken from the server's account.")
