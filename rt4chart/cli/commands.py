"""What each `rt4chart` command does: build the judge and settings from the arguments, call the library,
print the result."""
from __future__ import annotations

import json
import sys
import time
from typing import Any, Optional

from pydantic import ValidationError

from rt4chart.core.config import AuditConfig, settings_problem
from rt4chart.core.cost import Cost
from rt4chart.core.counted import counted
from rt4chart.core.errors import InputError
from rt4chart.data.records import read_text
from rt4chart.judges.factory import make_judge


def _build(args) -> tuple:
    options: dict[str, Any] = {}
    if getattr(args, "dry_run", False):
        if args.judge != "openai":
            raise InputError("--dry-run plans the calls of an LLM judge; use it with --judge openai")
        from rt4chart.judges.llm.dry_run import DryRunClient

        options = {"client": DryRunClient(args.model or "dry-run")}
    elif args.judge in ("model", "hybrid"):
        if args.threads < 0:
            raise InputError(f"--threads must be 0 (as many as the machine has) or more, not {args.threads}")
        options = {"model": args.model, "threads": args.threads}
    elif args.judge == "openai":
        options = {"model": args.model, "base_url": args.base_url, "api_key": args.api_key,
                   "use_cache": not args.no_cache, "timeout_s": args.timeout, "max_attempts": args.max_attempts,
                   "max_concurrency": args.max_concurrency, "context_tokens": args.context_tokens,
                   "response_mode": args.response_format}
    try:
        config = AuditConfig(window_size=args.window_size, window_stride=args.window_stride,
                             reflect=args.reflect, max_rounds=args.max_rounds, threshold=args.threshold)
    except ValidationError as exc:
        raise InputError(f"invalid settings: {settings_problem(exc)}") from None
    judge = make_judge(args.judge, **options)
    if config.reflect:
        from rt4chart.auditing.reflection import check_supported

        check_supported(judge)
    return judge, config


def cmd_audit(args) -> int:
    from rt4chart.auditing.pipeline import audit
    from rt4chart.reporting.text import render_text

    if args.context == "-" and args.answer == "-":
        raise InputError("only one of --context and --answer can read standard input ('-')")
    judge, config = _build(args)
    report = audit(read_text(args.context), read_text(args.answer), args.question, judge=judge, config=config)
    if args.format == "json":
        print(report.to_json(indent=2))
    elif args.format == "html":
        from rt4chart.reporting.html import report_html

        print(report_html(report))
    else:
        print(render_text(report))
    return 1 if report.status in _fail_on(args) else 0


def _fail_on(args) -> set[str]:
    """Statuses that make the command exit 1 (`--fail-on hallucinated,unverified`)."""
    wanted = {w.strip() for value in (getattr(args, "fail_on", None) or []) for w in value.split(",") if w.strip()}
    unknown = wanted - {"hallucinated", "unverified"}
    if unknown:
        raise InputError(f"--fail-on takes hallucinated and/or unverified, not {', '.join(sorted(unknown))}")
    return wanted


class _Progress:
    """A tqdm bar on stderr with the total and an ETA, opened at the first finished row (so input errors
    print alone)."""

    def __init__(self, total: Optional[int], quiet: bool):
        self.total, self.quiet = total, quiet
        self.bar: Any = None  # a tqdm bar, made on the first update

    def __call__(self, done: Optional[int] = None, total: Optional[int] = None) -> None:
        if self.quiet:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total if total is not None else self.total, unit="answer", file=sys.stderr,
                            dynamic_ncols=True, leave=False, initial=(done - 1) if done else 0)
        if done is None:
            self.bar.update(1)
        else:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _mapping(args) -> dict:
    """Role -> column from --context-col/--answer-col/--question-col/--id-col (unset roles auto-detected)."""
    return {role: getattr(args, f"{role}_col", None) for role in ("context", "answer", "question", "id")
            if getattr(args, f"{role}_col", None)}


def _batch_in_rounds(args, spec, via: str):
    """`batch --via batch-api|batch-file`: the rounds, with a line per round's progress."""
    from rt4chart.batch.output import is_stream
    from rt4chart.batch.provider.providers import WaitingForRunner
    from rt4chart.batch.provider.run import run_in_rounds
    from rt4chart.core.errors import InputError as _InputError

    if args.judge != "openai":
        raise _InputError(f"--via {via} sends the openai judge's requests; add --judge openai")
    if is_stream(args.output) and not getattr(args, "dry_run", False):  # written there when the last round is in
        if spec.store is None:
            raise _InputError(f"--via {via} with -o {args.output} keeps its rounds in the run store: leave out "
                              "--no-store, or give -o a file")
        if via == "batch-file" and not args.batch_dir:
            raise _InputError(f"--via batch-file with -o {args.output} needs --batch-dir: the folder the round "
                              "files are written to")

    if getattr(args, "dry_run", False):  # the plan's requests and tokens, and nothing submitted
        from rt4chart.batch.provider.run import estimate

        summary, planned = estimate(args.input, spec)
        print(f"rt4chart: dry run: {summary.rows} rows would submit {planned.cost.calls} requests in at least "
              f"{planned.rounds} rounds (about {planned.cost.prompt_tokens:,} prompt and "
              f"{planned.cost.completion_tokens:,} "
              f"completion tokens{_priced(args, spec.judge.model, planned.cost)}; the replies "
              "decide the repairs); nothing was submitted or written", file=sys.stderr)
        return summary

    def told(round_no: int, progress) -> None:
        if not args.quiet:
            print(f"rt4chart: round {round_no}: {progress.status}, {progress.done} of {progress.total or '?'} "
                  "requests done", file=sys.stderr)

    try:
        summary, report = run_in_rounds(args.input, args.output, spec, via, poll_every_s=args.poll_every,
                                        batch_dir=args.batch_dir, on_progress=told,
                                        command=getattr(args, "argv", ()))
    except WaitingForRunner as waiting:
        print(f"rt4chart: waiting for the batch runner: {waiting}", file=sys.stderr)
        raise SystemExit(75) from None  # EX_TEMPFAIL: nothing wrong, try again later
    if report.cancelled:
        print("rt4chart: the batch was cancelled: what the provider answered is in the run, every request it did "
              "not answer left its claims unverified", file=sys.stderr)
    print(f"rt4chart: {counted(report.rounds, 'round')}; this process submitted "
          f"{counted(report.requests_submitted, 'request')} in {counted(report.submissions, 'provider batch')}; "
          f"the reports rest on {report.cost.prompt_tokens:,} prompt and "
          f"{report.cost.completion_tokens:,} completion tokens{_priced(args, spec.judge.model, report.cost)}",
          file=sys.stderr)
    return summary


def _priced(args, model, cost: Cost) -> str:
    """", about 1.23 at the batch rate of …" with a price (--price-in/--price-out, or the price table)."""
    from rt4chart.batch.provider.prices import rate_for

    rate = rate_for(model, args.price_in, args.price_out, getattr(args, "prices", None))
    if rate is None:
        return ""
    return f", about {rate.price(cost):,.2f} at the batch rate of {rate.source}"


def _tell_what_happened(args, summary, cache) -> None:
    """What a predict or batch run did, on standard error: the format read, renamed ids, a resume, unverified and
    failed rows, a cache that could not be used, an empty input, the stored run and the summary line."""
    from rt4chart.batch.output import is_stream

    where = "standard output" if is_stream(args.output) else args.output
    if summary.recognised:
        print(f"rt4chart: read as {summary.recognised}", file=sys.stderr)
    if summary.renamed_ids:
        print(f"rt4chart: {len(summary.renamed_ids)} repeated ids were made unique with a '#n' suffix "
              f"(first: {summary.renamed_ids[0]!r})", file=sys.stderr)
    if summary.resumed:
        print(f"rt4chart: resumed: {summary.resumed} rows were already done, {summary.audited} audited now",
              file=sys.stderr)
    if summary.unverified:
        print(f"rt4chart: {summary.unverified} of {summary.rows} answers are unverified (the judge failed on "
              f"them; see each claim's reason in {where}); they are neither faithful nor hallucinated",
              file=sys.stderr)
    if summary.failed:
        print(f"rt4chart: {summary.failed} of {summary.rows} records failed; see their \"error\" field in "
              f"{where}", file=sys.stderr)
    if cache is not None and cache.problem:
        print(f"rt4chart: the cache {cache.path} could not be used ({cache.problem}); the run went on without it",
              file=sys.stderr)
    if not summary.rows:
        print(f"rt4chart: {args.input} has no records (a header only, or blank lines): nothing was audited, "
              f"{where} is empty, no run was stored", file=sys.stderr)
    if summary.run_id:
        print(f"rt4chart: stored as run {summary.run_name!r} (id {summary.run_id[:8]}): `rt4chart runs show "
              f"{summary.run_id[:8]}`, or the app's Runs page", file=sys.stderr)
    if summary.rows:
        print(f"rt4chart: {summary_line(summary)} -> {where}", file=sys.stderr)


def cmd_predict(args) -> int:
    """`predict` and `batch`: a file in, one JSON line per input record out, in input order."""
    from rt4chart.batch.output import is_stream
    from rt4chart.batch.run import run_spec
    from rt4chart.batch.spec import RunSpec
    from rt4chart.judges.cache import MemoCache

    if getattr(args, "dry_run", False) and getattr(args, "via", "sync") == "sync":
        raise InputError("--dry-run plans the rounds of --via batch-api or --via batch-file; it never writes "
                         "predictions (for the synchronous plan: rt4chart bench --dry-run)")

    judge, config = _build(args)
    bar = _Progress(None, args.quiet)
    journal = None
    if getattr(args, "command", "") == "batch" and not args.no_journal:
        if args.journal:
            journal = args.journal
        elif not is_stream(args.output):
            journal = f"{args.output}.journal.sqlite3"
    cache = None if (args.no_cache or args.command == "predict") else MemoCache()
    engine = getattr(args, "engine", "local")
    partition_rows = None
    if getattr(args, "partitions", None):
        from rt4chart.data.tables import open_table

        total = open_table(args.input, args.delimiter).count
        partition_rows = max(1, -(-total // args.partitions))
    store = None
    if getattr(args, "command", "") == "batch" and not args.no_store:
        from rt4chart.store import Store

        store = Store()
    via = getattr(args, "via", "sync")
    try:
        spec = RunSpec(judge=judge, config=config, workers=args.workers, cache=cache, mapping=_mapping(args),
                       delimiter=args.delimiter, engine=engine, dask_address=getattr(args, "dask_address", None),
                       partition_rows=partition_rows, store=store, run_name=getattr(args, "run_name", None))
        if via != "sync":
            summary = _batch_in_rounds(args, spec, via)
        else:
            summary = run_spec(args.input, args.output, spec, journal_path=journal,
                               resume=not getattr(args, "restart", False), progress=bar)
    finally:
        bar.close()
    _tell_what_happened(args, summary, cache)
    fail_on = _fail_on(args)
    flagged = ("hallucinated" in fail_on and summary.hallucinated) or ("unverified" in fail_on and summary.unverified)
    return 1 if summary.failed or flagged else 0


def summary_line(summary) -> str:
    """One line of what a predict or batch run found: '20 rows: 7 hallucinated, 12 faithful, 1 unverified, 0
    failed, in 3.2 s'."""
    faithful = summary.rows - summary.hallucinated - summary.unverified - summary.failed
    rows = f"{summary.rows} row" + ("" if summary.rows == 1 else "s")
    return (f"{rows}: {summary.hallucinated} hallucinated, {faithful} faithful, {summary.unverified} unverified, "
            f"{summary.failed} failed, in {summary.elapsed_s:.1f} s")


def cmd_bench(args) -> int:
    from rt4chart.bench import format_scores, load_gold, run_bench

    gold = load_gold(args.files, limit=args.limit, seed=args.sample_seed, mapping=_mapping(args),
                     gold_column=args.gold_col, spans_column=args.spans_col, delimiter=args.delimiter)
    judge, config = _build(args)
    bar = _Progress(len(gold), args.quiet)
    result = run_bench(gold, judge, config, strict=args.strict, progress=bar,
                       workers=args.workers)
    if args.dry_run:
        d = result.as_dict()
        print(f"dry run (no calls made): {result.cost.calls} calls, {result.cost.prompt_tokens} prompt tokens for "
              f"{result.answers} answers ({d['judge_calls_per_answer']:.2f} calls and "
              f"{d['prompt_tokens_per_answer']:.0f} prompt tokens per answer; tokens estimated as characters/4)")
        return 0
    bar.close()
    from rt4chart.data.records import write_text

    out = sys.stderr if args.output == "-" else sys.stdout  # '-o -': the predictions own standard output
    if args.output:
        write_text(args.output, "\n".join(json.dumps(p, ensure_ascii=False) for p in result.predictions) + "\n")
    if args.json:
        print(json.dumps(result.as_dict(), indent=2), file=out)
    else:
        if result.scored < result.answers:
            print(f"scored over the {result.scored} verified answers of {result.answers}: {result.unverified} "
                  f"unverified and {len(result.errors)} failed answers are not scored", file=out)
        if result.refused:
            print(f"rt4chart: no score: {result.refused}", file=sys.stderr)
        for name, s in result.scores.items():
            print(format_scores(name, s), file=out)
        d = result.as_dict()
        print(f"throughput: {d['answers_per_s']} answers/s ({d['answers']} answers in {d['elapsed_s']} s, "
              f"{_width(result.workers, judge)}); "
              f"judge calls/answer {d['judge_calls_per_answer']:.2f} (plan {d['planned_calls_per_answer']:.2f}); "
              f"tokens/answer "
              f"{d['prompt_tokens_per_answer']:.0f} prompt + {d['completion_tokens_per_answer']:.0f} completion", file=out)
        for e in result.errors[:10]:
            print(f"error: {e}", file=sys.stderr)
    return 1 if result.errors or result.refused else 0


def _width(workers: int, judge) -> str:
    """How a run audited its rows, for a throughput line: '1 worker', '2 processes' or '4 threads'."""
    from rt4chart.batch.executors import in_processes

    if workers <= 1:
        return "1 worker"
    return f"{workers} " + ("processes" if in_processes(workers, judge.makes_calls) else "threads")


def cmd_insights(args) -> int:
    from rt4chart.data.records import iter_rows
    from rt4chart.insights.engine import build_insights, client_of, rows_from_predictions

    judge, _config = _build(args)
    rows = rows_from_predictions(iter_rows(args.input))
    parallel, rounds, lease = None, None, None
    if args.via != "sync":
        parallel, rounds, lease = _insights_in_rounds(args, judge)
    try:
        report = build_insights(rows, client_of(judge), warmup=args.warmup, patience=args.patience,
                                workers=args.workers, parallel=parallel)
    finally:
        if lease is not None:
            lease.release()
    if rounds is not None:
        print(f"rt4chart: the parallel phase took {counted(rounds.rounds, 'provider round')}; this process submitted "
              f"{counted(rounds.requests_submitted, 'request')} in {counted(rounds.submissions, 'provider batch')}",
              file=sys.stderr)
    from rt4chart.data.records import write_text

    if args.output:
        write_text(args.output, report.model_dump_json(indent=2) + "\n")
    if args.markdown:
        write_text(args.markdown, report.to_markdown())
    if "-" not in (args.output, args.markdown):  # else standard output holds the file asked for
        print(report.to_markdown())
    return 1 if report.failures and not report.items else 0


def _insights_in_rounds(args, judge):
    """`insights --via`: the parallel phase's checks through the provider, its rounds kept in the run store."""
    from rt4chart.batch.journal import file_digest, run_fingerprint
    from rt4chart.batch.provider.rounds import RoundsReport
    from rt4chart.batch.provider.run import provider_for
    from rt4chart.batch.provider.state import RoundState
    from rt4chart.insights.engine import client_of
    from rt4chart.insights.in_rounds import checks_in_rounds
    from rt4chart.store import Store
    from rt4chart.store.leases import BatchLease

    client = client_of(judge)
    if not hasattr(client, "answered_by"):
        raise InputError(f"--via {args.via} sends the openai judge's requests; use --judge openai")
    key = run_fingerprint(file_digest(args.input), {**judge.settings(), "insights": True, "via": args.via,
                                                     "warmup": args.warmup, "patience": args.patience})
    provider = provider_for(args.via, judge, args.output or f"{args.input}.insights", args.batch_dir, time.sleep)
    rounds = RoundsReport()
    store = Store()
    lease = BatchLease(store, key)  # one process drives these rounds: a second one is refused, not paid twice
    lease.take()

    def told(round_no: int, progress) -> None:
        lease.renew()
        if not args.quiet:
            print(f"rt4chart: insights round {round_no}: {progress.status}, {progress.done} of "
                  f"{progress.total or '?'} requests done", file=sys.stderr)

    return checks_in_rounds(client, provider, RoundState(store, key, args.via), args.poll_every,
                            on_progress=told, report=rounds), rounds, lease


def cmd_cache(args) -> int:
    from rt4chart.judges.cache import MemoCache

    memo = MemoCache()
    if args.action == "clear":
        print(f"removed {memo.clear()} entries from {memo.path}")
    else:
        print(f"{memo.path}: {len(memo)} entries, {memo.size_bytes() / 1e6:.2f} MB")
    return 0
