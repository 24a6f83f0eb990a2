"""Page: settings (kept for the whole session, on every page), cache, version and how the audit works."""
import streamlit as st

from app_pages import state
from app_pages._shared import cache, notice
from rt4chart.core.version import __version__

st.title("Settings & about")
st.subheader("Windows of the local verification")
st.caption("These settings apply to every audit of this session (single answers and batches), show in each "
           "report's coverage line and manifest, and stay as set when you change pages.")
c1, c2, c3 = st.columns(3)
s = state.settings()
s["window_size"] = c1.number_input("Window size (sentences)", 1, 200, **state.bind("window_size"))
s["window_stride"] = c2.number_input("Stride (sentences)", 1, 200, **state.bind("window_stride"))
s["windows_per_claim"] = c3.number_input("Windows per claim", 1, 1000, **state.bind("windows_per_claim"))
if s["window_stride"] > s["window_size"]:
    notice("error", "The stride must not exceed the window size, or sentences between windows are never checked; "
                    "audits use these settings only once the stride is at most the window size.")

st.subheader("Operating point")
st.caption("Every answer gets a score (how likely it is hallucinated). By default an answer is flagged exactly "
           "when the judge finds a contradicted or baseless claim; a threshold of your own flags more answers "
           "(lower) or only the likeliest (higher). The Dataset metrics page shows precision and recall against "
           "a gold column at every threshold.")
t1, t2 = st.columns([1, 2])
s["custom_threshold"] = t1.toggle("Use my own threshold", **state.bind("custom_threshold"))
s["threshold"] = t2.slider("Flag an answer when its score is at least", 0.0, 1.0, step=0.01,
                           disabled=not s["custom_threshold"], **state.bind("threshold"))

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
