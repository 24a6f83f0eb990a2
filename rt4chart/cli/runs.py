"""`rt4chart runs …`: the runs kept in the run store — list, show (with judge-human agreement), compare,
review, export reviewed labels, rename, tag, delete. Scripts depend on the JSON field names."""
from __future__ import annotations

import getpass
import json
import sys
from pathlib import Path

from rt4chart.evaluation.metrics import fmt


def _store():
    from rt4chart.store import Store

    return Store()


def _json(value) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def _pct(x) -> str:
    return "–" if x is None else f"{x:.1%}"


def cmd_list(args) -> int:
    runs = [r.as_dict() for r in _store().list_runs()]
    if args.json:
        _json([{k: r[k] for k in ("id", "name", "created", "judge", "model", "rows", "hallucinated", "unverified",
                                  "failed", "rate", "status", "tags", "source")} for r in runs])
        return 0
    if not runs:
        print("no runs yet: `rt4chart batch FILE -o OUT` stores one")
    for r in runs:
        print(f"{r['id'][:8]}  {r['created']}  {r['name']}  [{r['judge']}{'/' + r['model'] if r['model'] else ''}]  "
              f"{r['rows']} rows, {r['hallucinated']} hallucinated ({_pct(r['rate'])})"
              + (f", {r['unverified']} unverified" if r["unverified"] else "")
              + (f", {r['failed']} failed" if r["failed"] else "") + (f"  tags: {', '.join(r['tags'])}" if r["tags"]
                                                                     else "") + ("" if r["status"] == "complete"
                                                                                 else f"  ({r['status']})"))
    return 0


def cmd_show(args) -> int:
    from rt4chart.runs import agreement_of, gold_of_run

    store = _store()
    run = store.get_run(args.run)
    info = run.as_dict()
    info["agreement"] = agreement_of(store, run)
    info["gold"] = gold_of_run(store, run)
    if args.json:
        _json(info)
        return 0
    print(f"{run.name}  (id {run.id}, {run.created}, {run.status})")
    print(f"judge: {run.judge}{' / ' + run.model if run.model else ''}; source: {run.source or '-'}; "
          f"tags: {', '.join(run.tags) or '-'}")
    print(f"rows: {run.rows}; hallucinated: {run.hallucinated} ({_pct(info['rate'])} of verified); unverified: "
          f"{run.unverified}; failed: {run.failed}; {run.elapsed_s:.1f} s")
    a = info["agreement"]
    print(f"judge vs analysts: {a['rows_reviewed']} rows reviewed ({a['rows_compared']} compared); Cohen's kappa "
          f"{fmt(a['kappa'])}; agreement {fmt(a['agreement'])}; precision of flags {fmt(a['flag_precision'])} over "
          f"{a['flags_reviewed']} reviewed flags; span P/R/F1 {fmt(a['span_precision'])} / {fmt(a['span_recall'])} "
          f"/ {fmt(a['span_f1'])}")
    if info["gold"]:
        print(_gold_line(info["gold"]))
    return 0


def _gold_line(g: dict) -> str:
    return (f"against gold ({g['column']}, {g['n']} verified rows): precision {fmt(g['precision'])}, recall "
            f"{fmt(g['recall'])}, F1 {fmt(g['f1'])}, balanced accuracy {fmt(g['balanced_accuracy'])}, AUROC "
            f"{fmt(g['auroc'])}")


def cmd_compare(args) -> int:
    from rt4chart.runs import comparison, gold_of_run

    store = _store()
    a, b, c = comparison(store, args.a, args.b, args.group)
    result = c.as_dict()
    result["a"].update(id=a.id, name=a.name, gold=gold_of_run(store, a))
    result["b"].update(id=b.id, name=b.name, gold=gold_of_run(store, b))
    if args.json:
        result.pop("pairs")
        _json(result)
        return 0
    print(f"A: {a.name}   B: {b.name}")
    print(f"matched rows: {c.matched_rows} (by {c.matched_by}); {c.excluded} unverified or failed in A or B are "
          f"not compared; unmatched: {c.unmatched_a} in A, {c.unmatched_b} in B")
    for side, r in (("A", c.a), ("B", c.b)):
        print(f"{side}: {_pct(r['rate'])} hallucinated (95% CI {_pct(r['low'])}–{_pct(r['high'])}, {r['hallucinated']} "
              f"of {r['n']})")
        gold = result[side.lower()]["gold"]
        if gold:
            print(f"   {_gold_line(gold)}")
    print(f"flipped to hallucinated: {len(c.flipped_to_hallucinated)}; flipped to faithful: "
          f"{len(c.flipped_to_faithful)}; McNemar p = {c.mcnemar_p:.4g}")
    for g in c.groups:
        print(f"  {g['group']}={g['value']}: {_pct(g['a_rate'])} -> {_pct(g['b_rate'])} (n={g['n']})")
    for d in c.settings:
        print(f"  setting {d['key']}: {d['a']!r} -> {d['b']!r}")
    return 0


def cmd_review(args) -> int:
    store = _store()
    reviewer = args.reviewer or getpass.getuser()
    store.add_review(args.run, args.row, reviewer=reviewer, label=args.label, note=args.note or "")
    print(f"reviewed row {args.row} of {store.get_run(args.run).name}: {args.label} (by {reviewer})")
    return 0


def cmd_export(args) -> int:
    from rt4chart.data.records import write_text
    from rt4chart.store import label_records

    store = _store()
    run = store.get_run(args.run)
    reviews = store.reviews(run.id)
    records = store.records(run.id)
    reports = dict(store.reports(run.id))
    out, skipped = label_records(records, reports, reviews, reviewed_only=args.reviewed_only)
    where = write_text(args.output, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out))
    reviewed = sum(1 for r in out if r["label_source"] == "review")
    left = ("not reviewed" if args.reviewed_only else "without a known label (unverified or failed)")
    print(f"wrote {len(out)} records to {where} ({reviewed} with analysts' labels"
          + (f"; {skipped} {left}, left out" if skipped else "") + ")", file=sys.stderr)
    return 0


def cmd_delete(args) -> int:
    run = _store().delete(args.run)
    print(f"deleted run {run.name} ({run.rows} rows and their reviews)")
    return 0


def cmd_rename(args) -> int:
    run = _store().rename(args.run, args.name)
    print(f"renamed to {run.name}")
    return 0


def cmd_tag(args) -> int:
    store = _store()
    run = store.get_run(args.run)
    tags = [t for t in run.tags if t not in (args.remove or [])] + list(args.tags or [])
    run = store.set_tags(run.id, tags)
    print(f"{run.name}: tags {', '.join(run.tags) or '-'}")
    return 0


def cmd_batches(args) -> int:
    from rt4chart.store.provider_jobs import JobBook

    jobs = JobBook(_store()).all()
    if args.json:
        _json([{"key": j.key, "via": j.via, "source": j.source, "output": j.output, "status": j.status,
                "round": j.round, "progress": j.progress, "cancel_requested": j.cancel_requested, "run_id": j.run_id,
                "created": j.created, "updated": j.updated} for j in jobs])
        return 0
    if not jobs:
        print("no batch has gone through a provider: `rt4chart batch FILE -o OUT --judge openai --via batch-api`")
    for j in jobs:
        print(f"{j.key[:12]}  {str(j.created)[:16]}  {j.source} -> {j.output}  [{j.via}]  {j.line}"
              + (f"  run {j.run_id[:8]}" if j.run_id else ""))
    return 0


def cmd_cancel(args) -> int:
    from rt4chart.store.provider_jobs import JobBook

    job = JobBook(_store()).request_cancel(args.batch)
    print(f"cancel requested for batch {job.key[:12]} ({job.source}): the process waiting on the provider cancels "
          "its batches at its next poll; if none is running, `rt4chart runs resume "
          f"{job.key[:12]}` does it. What the provider answered is kept; the rest ends unverified")
    return 0


def cmd_resume(args) -> int:
    """Run a provider batch's command again, in its folder: it collects what was submitted and goes on."""
    import os

    from rt4chart.store.provider_jobs import JobBook

    job = JobBook(_store()).find(args.batch)
    if job.status == "done":
        print(f"batch {job.key[:12]} is done: `rt4chart runs show {(job.run_id or '')[:8]}`")
        return 0
    if not Path(job.cwd).is_dir():
        from rt4chart.core.errors import InputError

        raise InputError(f"batch {job.key[:12]} ran in {job.cwd}, which is gone; run its command again where its "
                         f"input is: rt4chart {' '.join(job.argv)}")
    argv = list(job.argv) + (["--api-key", args.api_key] if args.api_key else [])
    print(f"rt4chart: resuming batch {job.key[:12]} in {job.cwd}: rt4chart {' '.join(job.argv)}", file=sys.stderr)
    os.chdir(job.cwd)
    args.run_again = argv  # the command line main() runs next, as if it had been typed in that folder
    return 0


def cmd_report(args) -> int:
    from rt4chart.data.records import write_text
    from rt4chart.runs import report_of_run

    where = write_text(args.output, report_of_run(_store(), args.run))
    if where != "standard output":
        print(f"rt4chart: wrote the report of run {args.run!r} to {where}", file=sys.stderr)
    return 0


def add_report_parser(sub) -> None:
    p = sub.add_parser("report", help="a stored run's HTML report for stakeholders (one self-contained file)")
    p.add_argument("run", help="run id or unique name (`rt4chart runs list`)")
    p.add_argument("-o", "--output", required=True, help="the HTML file to write ('-': stdout)")
    p.set_defaults(func=cmd_report)


def add_parser(sub) -> None:
    runs = sub.add_parser("runs", help="the runs in the run store ($RT4CHART_DB): list, show, compare, review, "
                                       "export, rename, tag, delete; provider batches: batches, cancel, resume")
    verbs = runs.add_subparsers(dest="verb", required=True)
    p = verbs.add_parser("list", help="every run, newest first")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)
    p = verbs.add_parser("show", help="one run, with the judge's agreement with the analysts' reviews")
    p.add_argument("run", help="run id or unique name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)
    p = verbs.add_parser("compare", help="v1 vs v2: paired rates, McNemar's test, flipped rows, settings that differ")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--group", action="append", help="group column for per-group deltas (default: the runs' groups)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_compare)
    p = verbs.add_parser("review", help="record an analyst's label for one row")
    p.add_argument("run")
    p.add_argument("--row", required=True, help="the row id")
    p.add_argument("--label", required=True, choices=("hallucinated", "faithful"))
    p.add_argument("--note")
    p.add_argument("--reviewer", help="who reviews (default: the OS user)")
    p.set_defaults(func=cmd_review)
    p = verbs.add_parser("export", help="labels as benchmark JSONL (scores any judge with `rt4chart bench`)")
    p.add_argument("run")
    p.add_argument("-o", "--output", required=True, help="the JSONL file to write ('-': stdout)")
    p.add_argument("--reviewed-only", action="store_true", help="only rows an analyst labelled")
    p.set_defaults(func=cmd_export)
    p = verbs.add_parser("rename")
    p.add_argument("run")
    p.add_argument("name")
    p.set_defaults(func=cmd_rename)
    p = verbs.add_parser("tag")
    p.add_argument("run")
    p.add_argument("tags", nargs="*")
    p.add_argument("--remove", action="append", help="a tag to remove")
    p.set_defaults(func=cmd_tag)
    p = verbs.add_parser("batches", help="the batches sent through a provider (--via): where each stands")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_batches)
    p = verbs.add_parser("cancel", help="cancel a batch waiting on a provider (what was answered is kept)")
    p.add_argument("batch", help="its key, or the first 6+ characters of it (`rt4chart runs batches`)")
    p.set_defaults(func=cmd_cancel)
    p = verbs.add_parser("resume", help="run a provider batch's command again: collect its rounds and go on")
    p.add_argument("batch", help="its key, or the first 6+ characters of it (`rt4chart runs batches`)")
    p.add_argument("--api-key", help="the key, when it is not in OPENAI_API_KEY (it is never stored)")
    p.set_defaults(func=cmd_resume)
    p = verbs.add_parser("delete", help="delete a run with its rows and reviews")
    p.add_argument("run")
    p.set_defaults(func=cmd_delete)

