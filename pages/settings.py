"""Page: settings, cache, version and how the audit works."""
import streamlit as st

from pages._shared import cache, enter_through_app
from rt4chart import __version__
from rt4chart.config import AuditConfig

enter_through_app()  # a deep link on a fresh server must still get the app's navigation

st.title("Settings & about")
defaults = AuditConfig()
st.subheader("Windows of the local verification")
c1, c2, c3 = st.columns(3)
c1.number_input("Window size (sentences)", 1, 200, defaults.window_size, key="settings.window_size")
c2.number_input("Stride (sentences)", 1, 200, defaults.window_stride, key="settings.window_stride")
c3.number_input("Windows per claim", 1, 1000, defaults.windows_per_claim, key="settings.windows_per_claim")
if st.session_state["settings.window_stride"] > st.session_state["settings.window_size"]:
    st.error("The stride must not exceed the window size, or sentences between windows are never checked.")

st.subheader("Memo cache")
memo = cache()
st.write(f"Location: `{memo.path}` — {len(memo)} entries, {memo.size_bytes() / 1e6:.2f} MB")
if st.button("Clear the cache"):
    st.success(f"Removed {memo.clear()} entries.")

st.subheader("How it works")
st.graphviz_chart("""
digraph { rankdir=LR; node [shape=box, style=rounded];
  A [label="1. Decompose\\nanswer -> atomic claims\\n(with answer spans)"];
  B [label="2. Local verification\\nclaim x context window\\nOR-join: contradicted > entailed > baseless"];
  C [label="3. Global verification\\nwhole context,\\nlocal verdicts as hints"];
  D [label="4. Aggregate\\nAND-join over claims\\nspans + evidence"];
  A -> B -> C -> D; }
""")
st.caption(f"rt4chart {__version__} · offline judge: lexical evidence retrieval with number, entity, negation and "
           "antonym checks · openai judge: any OpenAI-compatible endpoint with structured outputs")
