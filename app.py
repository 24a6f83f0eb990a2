"""rt4chart dashboard: `streamlit run app.py` (the hybrid judge by default, `rt4chart.core.defaults.JUDGE`)."""
from pathlib import Path

import streamlit as st

ICON = str(Path(__file__).resolve().parent / "assets" / "icon.png")  # local: nothing is fetched from a CDN


def main() -> None:
    st.set_page_config(page_title="rt4chart — hallucination audit", page_icon=ICON, layout="wide")
    from app_pages._address import keep_settings, restore_settings
    from app_pages._jobs import sidebar_list
    from app_pages._shared import judge_sidebar
    from app_pages._store import keep_run_in_url, reopen_last_run

    pages = [
        st.Page("app_pages/audit.py", title="Audit an answer", icon=":material/fact_check:", default=True),
        st.Page("app_pages/batch.py", title="Batch audit", icon=":material/table_view:"),
        st.Page("app_pages/metrics.py", title="Dataset metrics", icon=":material/monitoring:"),
        st.Page("app_pages/runs.py", title="Runs", icon=":material/history:"),
        st.Page("app_pages/compare.py", title="Compare runs", icon=":material/compare_arrows:"),
        st.Page("app_pages/insights.py", title="Insights", icon=":material/lightbulb:"),
        st.Page("app_pages/settings.py", title="Settings & about", icon=":material/settings:"),
    ]
    navigation = st.navigation(pages)
    reopen_last_run()  # a reloaded browser gets the run its address names (and its settings, before any widget)
    restore_settings()  # then the session's own settings, as the address kept them
    judge_sidebar()
    sidebar_list()  # the batch jobs running now, on every page
    keep_run_in_url()  # before the page draws: what it shows is already named in the address
    keep_settings()
    navigation.run()
    keep_run_in_url()  # and a run the page opened or stored now
    keep_settings()


main()
