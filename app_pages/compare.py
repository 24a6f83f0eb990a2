"""Page: v1 vs v2 — two stored runs compared on the rows they share: rates with intervals, McNemar's test,
per-group deltas, the rows whose status flipped (each opening both reports side by side), and the
settings that differ."""
import pandas as pd
import streamlit as st

from app_pages import state
from app_pages._shared import notice, show_report, show_table, text
from app_pages._store import store
from rt4chart.runs import claim_flips, comparison, run_figures

st.title("Compare two runs")
s = store()
runs = s.list_runs()
if len(runs) < 2:
    st.info("Comparing needs two stored runs: audit the same data twice (e.g. before and after a prompt change).")
    st.stop()
by_id = {r.id: r for r in runs}
ids = list(by_id)
label = lambda i: f"{by_id[i].name} · {by_id[i].created}"  # noqa: E731


def default_pair() -> tuple[str, str]:
    """The newest run (B) and the newest earlier run that shares rows with it (A), by id or by context and answer;
    the two newest when none of the last 20 does."""
    def keys(run_id: str) -> set:
        return {k for r in s.row_index(run_id) for k in (("id", r["row_id"]), ("text", r["match_key"]))}

    newest = keys(ids[0])
    for other in ids[1:21]:
        if newest & keys(other):
            return other, ids[0]
    return ids[1], ids[0]


if state.widget("w.compare.a") not in by_id or state.widget("w.compare.b") not in by_id:
    first, second = default_pair()
    state.set_widget("w.compare.a", first)
    state.set_widget("w.compare.b", second)
c1, c2 = st.columns(2)
a_id = c1.selectbox("Run A (before)", ids, format_func=label, key="w.compare.a")
b_id = c2.selectbox("Run B (after)", ids, format_func=label, key="w.compare.b")
a, b, result = comparison(s, a_id, b_id)
if result.matched_rows == 0:
    st.warning("These two runs share no rows (neither by id nor by context and answer), so there is nothing to "
               "compare pairwise: pick two runs over the same data.")
    st.stop()

pairs = result.pairs
figures = {"A": run_figures(s, a, [x for x, _ in pairs]), "B": run_figures(s, b, [y for _, y in pairs])}
def with_interval(f: dict, name: str) -> str:
    """A gold figure with its 95% bootstrap interval, as text ("0.712 (0.65–0.77)")."""
    value = f.get(name)
    if value is None:
        return "–"
    lo, hi = f.get("intervals", {}).get(name, (None, None))
    return f"{value:.3f}" + (f" ({lo:.2f}–{hi:.2f})" if lo is not None and hi is not None else "")


table = pd.DataFrame([{"run": f"{side}: {run.name}", "rows": f["rows"], "hallucination rate": f["rate"],
                       **({"precision": with_interval(f, "precision"), "recall": with_interval(f, "recall"),
                           "F1": with_interval(f, "f1"), "balanced accuracy": with_interval(f, "balanced_accuracy"),
                           "gold rows": f["gold_rows"]} if "gold" in f else {}),
                       "judge calls": f["judge_calls"], "tokens": f["tokens"], "audit time (s)": f["elapsed_s"]}
                      for (side, f), run in zip(figures.items(), (a, b))])
show_table(table, hide_index=True, width="stretch",
           column_config={"hallucination rate": st.column_config.NumberColumn("hallucination rate", format="percent")})
if "gold" in figures["A"] and "gold" in figures["B"]:
    st.caption("Gold figures with 95% bootstrap intervals over the rows compared: intervals that overlap much say "
               "the difference may be chance.")
if "gold" not in figures["A"] or "gold" not in figures["B"]:
    st.caption("With a gold column in both runs' mapping, precision, recall, F1 and balanced accuracy against it "
               "appear here.")

m = st.columns(4)
m[0].metric("Rows compared", result.matched_rows - result.excluded,
            help=f"matched by {result.matched_by}; {result.excluded} unverified or failed in A or B not compared; "
                 f"{result.unmatched_a} rows only in A, {result.unmatched_b} only in B")
for col, side, r in ((m[1], "A", result.a), (m[2], "B", result.b)):
    col.metric(f"Hallucination rate {side}", "–" if r["rate"] is None else f"{r['rate']:.1%}",
               help=f"{r['hallucinated']} of {r['n']}; 95% interval {r['low']:.1%}–{r['high']:.1%}")
m[3].metric("McNemar p", f"{result.mcnemar_p:.3g}", help="exact test on the rows whose status differs")
st.caption(f"{len(result.flipped_to_hallucinated)} rows became hallucinated in B, "
           f"{len(result.flipped_to_faithful)} became faithful; a small p says the change is unlikely to be chance.")

if result.groups:
    st.subheader("By group")
    show_table(pd.DataFrame(result.groups), hide_index=True, width="stretch",
                 column_config={k: st.column_config.NumberColumn(k, format="percent") for k in ("a_rate", "b_rate", "delta")})
CLAIMS_AT_ONCE = 2_000  # rows whose claims are compared without asking (their reports are read from the store)


@st.cache_data(show_spinner="Comparing claim verdicts…", max_entries=8)
def claims_of(a_id: str, b_id: str, pairs: tuple[tuple[str, str], ...]) -> dict:
    return claim_flips(s, s.get_run(a_id), s.get_run(b_id), list(pairs)).as_dict()


st.subheader("Claim verdicts")
changes = None
if len(pairs) <= CLAIMS_AT_ONCE or st.button(f"Compare the claims of all {len(pairs)} rows"):
    changes = claims_of(a.id, b.id, tuple(pairs))
if changes is not None:
    st.caption(f"{changes['claims_compared']} claims matched by their text in {changes['rows']} shared rows; "
               f"{changes['changed']} changed verdict in {len(changes['changed_rows'])} rows"
               + (f"; {changes['only_in_a']} claims only in A and {changes['only_in_b']} only in B (the answers "
                  "were decomposed differently)" if changes["only_in_a"] or changes["only_in_b"] else "") + ".")
    if changes["transitions"]:
        show_table(pd.DataFrame([{"A → B": k, "claims": v} for k, v in
                                 sorted(changes["transitions"].items(), key=lambda kv: -kv[1])]),
                   hide_index=True)
    statuses_same = not result.flipped_to_hallucinated and not result.flipped_to_faithful
    if result.settings and statuses_same and changes["changed"] == 0 and not changes["only_in_a"] \
            and not changes["only_in_b"]:
        notice("info", f"The settings changed, the results did not: none of the {changes['claims_compared']} "
                       f"claim verdicts and none of the {result.matched_rows} answer statuses differ.")
else:
    st.caption(f"{len(pairs)} shared rows: their claims are compared on request (the reports are read from the "
               "store).")

st.subheader("Settings that differ")
if result.settings:
    show_table(pd.DataFrame([{k: str(v) for k, v in d.items()} for d in result.settings]), hide_index=True,
                 width="stretch")
else:
    st.caption("The two runs were made with the same settings.")

flipped = [("became hallucinated", i) for i in result.flipped_to_hallucinated] + [
    ("became faithful", i) for i in result.flipped_to_faithful]
if flipped:
    st.subheader("Rows whose status flipped")
    pick = st.selectbox("Row", range(len(flipped)), format_func=lambda k: f"{flipped[k][1]} — {flipped[k][0]}",
                        key="w.compare.row")
    b_row = flipped[pick][1]
    a_row = next(x for x, y in result.pairs if y == b_row)
    left, right = st.columns(2)
    for col, run, row, key in ((left, a, a_row, "compare.a"), (right, b, b_row, "compare.b")):
        with col:
            text(run.name, "Run:")
            report = s.report(run.id, row)
            if report is not None:
                show_report(report, key=key)
