"""The `rt4chart` command: audit one answer, predict over a file, benchmark against gold labels."""
from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path
from typing import Any, Optional

from rt4chart.core.config import AuditConfig
from rt4chart.core.errors import InputError, Rt4chartError
from rt4chart.core.version import __version__
from rt4chart.data.records import read_text
from rt4chart.judges.factory import JUDGES, make_judge
from rt4chart.judges.llm.openai_client import RESPONSE_MODES


def _judge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", default="offline", choices=JUDGES, help="verification backend (default: offline)")
    p.add_argument("--model", help="openai judge: the model name (default: $RT4CHART_MODEL or gpt-4o-mini); model and "
                                  "hybrid judges: a checkpoint folder or a Hugging Face id in the local cache "
                                  "(default: the verifier shipped with rt4chart)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    p.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY); prefer the environment variable")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the memo cache")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per LLM call (openai judge)")
    p.add_argument("--max-attempts", type=int, default=4, help="attempts per LLM call, retries included")
    p.add_argument("--max-concurrency", type=int, default=8, help="LLM requests in flight at once, all threads")
    p.add_argument("--context-tokens", type=int,
                   help="the model's context size in tokens (default: read from the server where it says, e.g. "
                        "llama.cpp /props, vLLM /v1/models; else 32768); bounds the global step's prompt")
    p.add_argument("--response-format", choices=RESPONSE_MODES,
                   help="structured-output format to request (default: json_schema, stepping down on rejection)")
    p.add_argument("--window-size", type=int, default=AuditConfig().window_size)
    p.add_argument("--window-stride", type=int, default=AuditConfig().window_stride)
    p.add_argument("--reflect", action="store_true",
                   help="LLM judges: re-examine verdicts until the judge declares success (see --max-rounds)")
    p.add_argument("--max-rounds", type=int, default=AuditConfig().max_rounds, help="reflection round cap")
    p.add_argument("--threshold", type=float, default=AuditConfig().threshold,
                   help="an answer is hallucinated when its score reaches this (default 0.5: the judge's verdicts; "
                        "lower finds more, higher flags only the likeliest)")
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")


EXIT_BUG = 70  # EX_SOFTWARE
EXIT_CODES = """exit codes:
  0    done, and nothing matched --fail-on
  1    a row failed; or --fail-on matched (e.g. the answer is hallucinated); or bench could not present a score
  2    bad input or usage, or a judge configuration the endpoint refused (key, model, URL)
  70   an internal error (a bug in rt4chart): the traceback is printed; please report it
  130  interrupted (Ctrl-C)
  141  the reader of standard output went away (e.g. `| head`); nothing is printed
"""


def _fail_on_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fail-on", action="append", metavar="STATUS",
                   help="also exit 1 when any answer is hallucinated and/or unverified (rows that failed always "
                        "make it exit 1)")


def _table_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--delimiter", help="CSV delimiter: ',', ';', 'tab' or '|' (default: tab for .tsv, else comma; "
                                       "never guessed)")
    for role, what in (("context", "the retrieved passages"), ("answer", "the answer to audit"),
                       ("question", "the question (optional)"), ("id", "a row id (default: the row number)")):
        p.add_argument(f"--{role}-col", metavar="COLUMN", help=f"column with {what} (default: detected by name)")


def _build(args) -> tuple:
    options: dict[str, Any] = {}
    if getattr(args, "dry_run", False):
        if args.judge != "openai":
            raise InputError("--dry-run plans the calls of an LLM judge; use it with --judge openai")
        from rt4chart.judges.llm.dry_run import DryRunClient

        options = {"client": DryRunClient(args.model or "dry-run")}
    elif args.judge in ("model", "hybrid"):
        options = {"model": args.model}
    elif args.judge == "openai":
        options = {"model": args.model, "base_url": args.base_url, "api_key": args.api_key,
                   "use_cache": not args.no_cache, "timeout_s": args.timeout, "max_attempts": args.max_attempts,
                   "max_concurrency": args.max_concurrency, "context_tokens": args.context_tokens,
                   "response_mode": args.response_format}
    try:
        config = AuditConfig(window_size=args.window_size, window_stride=args.window_stride,
                             reflect=args.reflect, max_rounds=args.max_rounds, threshold=args.threshold)
    except ValueError as exc:
        raise InputError(str(exc).splitlines()[-1]) from None
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


def cmd_predict(args) -> int:
    """`predict` and `batch`: a file in, one JSON line per input record out, in input order."""
    from rt4chart.batch.run import is_stream, run_spec
    from rt4chart.batch.spec import RunSpec
    from rt4chart.judges.cache import MemoCache

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
    try:
        spec = RunSpec(judge=judge, config=config, workers=args.workers, cache=cache, mapping=_mapping(args),
                       delimiter=args.delimiter, engine=engine, dask_address=getattr(args, "dask_address", None),
                       partition_rows=partition_rows, store=store, run_name=getattr(args, "run_name", None))
        summary = run_spec(args.input, args.output, spec, journal_path=journal,
                           resume=not getattr(args, "restart", False), progress=bar)
    finally:
        bar.close()
    where = "standard output" if is_stream(args.output) else args.output
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
    if summary.run_id:
        print(f"rt4chart: stored as run {summary.run_name!r} (id {summary.run_id[:8]}): `rt4chart runs show "
              f"{summary.run_id[:8]}`, or the app's Runs page", file=sys.stderr)
    fail_on = _fail_on(args)
    flagged = ("hallucinated" in fail_on and summary.hallucinated) or ("unverified" in fail_on and summary.unverified)
    return 1 if summary.failed or flagged else 0


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
        print(f"dry run (no calls made): {result.judge_calls} calls, {result.prompt_tokens} prompt tokens for "
              f"{result.answers} answers ({d['judge_calls_per_answer']:.2f} calls and "
              f"{d['prompt_tokens_per_answer']:.0f} prompt tokens per answer; tokens estimated as characters/4)")
        return 0
    bar.close()
    if args.output:
        Path(args.output).write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in result.predictions) + "\n",
                                     encoding="utf-8")
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        if result.scored < result.answers:
            print(f"scored over the {result.scored} verified answers of {result.answers}: {result.unverified} "
                  f"unverified and {len(result.errors)} failed answers are not scored")
        if result.refused:
            print(f"rt4chart: no score: {result.refused}", file=sys.stderr)
        for name, s in result.scores.items():
            print(format_scores(name, s))
        d = result.as_dict()
        print(f"throughput: {d['answers_per_s']} answers/s ({d['answers']} answers in {d['elapsed_s']} s); "
              f"judge calls/answer {d['judge_calls_per_answer']:.2f} (plan {d['planned_calls_per_answer']:.2f}); "
              f"tokens/answer "
              f"{d['prompt_tokens_per_answer']:.0f} prompt + {d['completion_tokens_per_answer']:.0f} completion")
        for e in result.errors[:10]:
            print(f"error: {e}", file=sys.stderr)
    return 1 if result.errors or result.refused else 0


def cmd_insights(args) -> int:
    from rt4chart.data.records import iter_rows
    from rt4chart.insights.engine import build_insights, client_of, rows_from_predictions

    judge, _config = _build(args)
    rows = rows_from_predictions(iter_rows(args.input))
    report = build_insights(rows, client_of(judge), warmup=args.warmup, patience=args.patience,
                            workers=args.workers)
    if args.output:
        Path(args.output).write_text(report.model_dump_json(indent=2), encoding="utf-8")
    if args.markdown:
        Path(args.markdown).write_text(report.to_markdown(), encoding="utf-8")
    print(report.to_markdown())
    return 1 if report.failures and not report.items else 0


def cmd_cache(args) -> int:
    from rt4chart.judges.cache import MemoCache

    memo = MemoCache()
    if args.action == "clear":
        print(f"removed {memo.clear()} entries from {memo.path}")
    else:
        print(f"{memo.path}: {len(memo)} entries, {memo.size_bytes() / 1e6:.2f} MB")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rt4chart", description="Audit RAG answers for hallucinations.", epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"rt4chart {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("audit", help="audit one answer against its context")
    p.add_argument("--context", required=True, help="context file ('-' for stdin)")
    p.add_argument("--answer", required=True, help="answer file ('-' for stdin)")
    p.add_argument("--question", help="the question the answer responds to (optional)")
    p.add_argument("--format", choices=("text", "json", "html"), default="text",
                   help="text for the terminal, json (full report), html (self-contained report page)")
    p.add_argument("--fail-on", action="append", metavar="STATUS",
                   help="exit 1 when the answer is hallucinated and/or unverified (e.g. --fail-on hallucinated,"
                        "unverified); to gate a pipeline")
    _judge_args(p)
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("predict", help="audit every record of a JSONL/CSV file, write predictions JSONL")
    p.add_argument("input", help=".jsonl, .csv/.tsv or .parquet file (validated first, then streamed)")
    p.add_argument("-o", "--output", required=True, help="output JSONL, one line per input record ('-': stdout)")
    _table_args(p)
    p.add_argument("--workers", type=int, default=1, help="concurrent audits (useful for the openai judge)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _fail_on_arg(p)
    _judge_args(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("batch", help="like predict, with a checkpoint journal: a killed run resumes where it stopped")
    p.add_argument("input", help=".jsonl, .csv/.tsv or .parquet file (validated first, then streamed)")
    p.add_argument("-o", "--output", required=True,
                   help="output JSONL, one line per input record, in input order ('-': stdout)")
    _table_args(p)
    p.add_argument("--workers", type=int, default=1, help="parallel audits: processes for the offline judge, threads "
                                                         "for LLM judges (which wait on the network), Dask workers")
    p.add_argument("--journal", help="checkpoint file (default: OUTPUT.journal.sqlite3)")
    p.add_argument("--no-journal", action="store_true", help="do not checkpoint")
    p.add_argument("--restart", action="store_true", help="ignore rows finished by an earlier run")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="local: a bounded thread pool in this process; dask: Dask's distributed scheduler")
    p.add_argument("--dask-address", help="scheduler address, e.g. tcp://host:8786 (default: start a LocalCluster "
                                          "of --workers processes)")
    p.add_argument("--partitions", type=int, help="number of partitions for --engine dask (default: about 8 per worker)")
    p.add_argument("--run-name", help="name of the run in the run store (default: the input's name and the time)")
    p.add_argument("--no-store", action="store_true", help="do not keep the run in the run store ($RT4CHART_DB)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _fail_on_arg(p)
    _judge_args(p)
    p.set_defaults(func=cmd_predict)

    from rt4chart.cli.runs import add_parser as add_runs_parser

    add_runs_parser(sub)

    p = sub.add_parser("insights", help="action items for the RAG team from an audited file (needs an LLM judge)")
    p.add_argument("input", help="output of rt4chart predict/batch (JSONL)")
    p.add_argument("-o", "--output", help="write the insights as JSON")
    p.add_argument("--markdown", help="write the insights as Markdown")
    p.add_argument("--warmup", type=int, default=10, help="rows of the sequential warm-up (most issues first)")
    p.add_argument("--patience", type=int, default=3, help="stop the warm-up after this many stable steps")
    p.add_argument("--workers", type=int, default=4, help="concurrent calls in the parallel phase")
    _judge_args(p)
    p.set_defaults(func=cmd_insights, judge="openai")

    p = sub.add_parser("cache", help="show or clear the memo cache of judge replies ($RT4CHART_CACHE_DIR)")
    p.add_argument("action", choices=("info", "clear"), nargs="?", default="info")
    p.set_defaults(func=cmd_cache)

    p = sub.add_parser("bench", help="run a judge on benchmark files and score it like score.py")
    p.add_argument("files", nargs="+")
    _table_args(p)
    p.add_argument("--gold-col", default="hallucinated", metavar="COLUMN", help="gold label column (default: "
                                                                                 "hallucinated)")
    p.add_argument("--spans-col", default="spans", metavar="COLUMN", help="gold spans column, JSON (default: spans)")
    p.add_argument("--strict", action="store_true", help="strict gold (FaithBench)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("-o", "--output", help="also write the predictions JSONL here")
    p.add_argument("--limit", type=int, help="only N records (a seeded sample with --sample-seed)")
    p.add_argument("--sample-seed", type=int)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--dry-run", action="store_true",
                   help="with --judge openai: call nothing, report the calls and prompt tokens the plan would make")
    p.add_argument("--workers", type=int, default=1, help="concurrent audits (useful for the openai judge)")
    _judge_args(p)
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        _quiet_stdout()  # `rt4chart ... | head`: the reader is gone; end quietly
        return 141
    except (Rt4chartError, OSError) as exc:  # the user's input, configuration or machine: say what to fix
        if getattr(args, "debug", False):
            traceback.print_exc()
        print(f"rt4chart: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rt4chart: interrupted", file=sys.stderr)
        return 130
    except Exception:  # anything else is a bug in rt4chart, not the user's mistake
        traceback.print_exc()
        print(f"rt4chart: internal error (a bug in rt4chart {__version__}, not in your input): please report it "
              "with the traceback above", file=sys.stderr)
        return EXIT_BUG


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
