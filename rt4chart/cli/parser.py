"""The `rt4chart` command line: every command, option and exit code (scripts depend on them)."""
from __future__ import annotations

import argparse
import importlib
from typing import Any, Callable

from rt4chart.core import defaults
from rt4chart.core.version import __version__
from rt4chart.judges.names import RESPONSE_MODES
from rt4chart.judges.registry import judge_names


def handler(module: str, name: str) -> Callable[[argparse.Namespace], Any]:
    """A command's function, imported when the command runs (so `--help` and `--version` load none of the
    judges, the store or their libraries)."""
    def run(args: argparse.Namespace) -> Any:
        return getattr(importlib.import_module(module), name)(args)

    run.__qualname__ = f"{module}.{name}"
    return run


def command(name: str) -> Callable[[argparse.Namespace], Any]:
    return handler("rt4chart.cli.commands", name)


def _judge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", default=defaults.JUDGE, choices=judge_names(),
                   help=f"verification backend (default: {defaults.JUDGE}, the app's default too)")
    p.add_argument("--model", help="openai judge: the model name (default: $RT4CHART_MODEL or gpt-4o-mini); model and "
                                  "hybrid judges: a checkpoint folder or a Hugging Face id in the local cache "
                                  "(default: the verifier shipped with rt4chart)")
    p.add_argument("--threads", type=int, default=0,
                   help="model and hybrid judges: inference threads (default 0: as many cores as there are, at most 4)")
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
    p.add_argument("--window-size", type=int, default=defaults.WINDOW_SIZE)
    p.add_argument("--window-stride", type=int, default=defaults.WINDOW_STRIDE)
    p.add_argument("--reflect", action="store_true",
                   help="LLM judges: re-examine verdicts until the judge declares success (see --max-rounds)")
    p.add_argument("--max-rounds", type=int, default=defaults.MAX_ROUNDS, help="reflection round cap")
    p.add_argument("--threshold", type=float, default=defaults.THRESHOLD,
                   help="an answer is hallucinated when its score reaches this (default: the judge's own calibrated "
                        "boundary, so exactly its verdicts; lower finds more, higher flags only the likeliest)")
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")


WORKERS_HELP = ("parallel audits, a number or 'auto' (the default: one process per core, at most 8, and one per 16 "
                "rows, for the judges that compute; one for LLM judges): processes for the judges that compute "
                "(offline, model, hybrid; with automatic --threads each takes its share of the cores), threads for "
                "LLM judges (which wait on the network)")


def workers_arg(text: str) -> int:
    """`--workers`: 'auto' or a positive number."""
    if text.strip().lower() == "auto":
        return defaults.AUTO_WORKERS
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a positive number of workers, not {text!r}")
    return value

EXIT_CODES = """exit codes:
  0    done, and nothing matched --fail-on
  1    a row failed; or --fail-on matched (e.g. the answer is hallucinated); or bench could not present a score
  2    bad input or usage, or a judge configuration the endpoint refused (key, model, URL)
  70   an internal error (a bug in rt4chart): the traceback is printed; please report it
  75   `--via batch-file` waits for its runner: run it, then the same command again
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


# Long on purpose: one flat list of commands and options, read top to bottom (docs/cli.md is made from it).
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
    p.set_defaults(func=command("cmd_audit"))

    p = sub.add_parser("predict", help="audit every record of a JSONL/CSV file, write predictions JSONL")
    p.add_argument("input", help=".jsonl, .csv/.tsv or .parquet file (validated first, then streamed)")
    p.add_argument("-o", "--output", required=True, help="output JSONL, one line per input record ('-': stdout)")
    _table_args(p)
    p.add_argument("--workers", type=workers_arg, default=defaults.AUTO_WORKERS, metavar="N|auto", help=WORKERS_HELP)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _fail_on_arg(p)
    _judge_args(p)
    p.set_defaults(func=command("cmd_predict"))

    p = sub.add_parser("batch", help="like predict, with a checkpoint journal: a killed run resumes where it stopped")
    p.add_argument("input", help=".jsonl, .csv/.tsv or .parquet file (validated first, then streamed)")
    p.add_argument("-o", "--output", required=True,
                   help="output JSONL, one line per input record, in input order ('-': stdout)")
    _table_args(p)
    p.add_argument("--workers", type=workers_arg, default=defaults.AUTO_WORKERS, metavar="N|auto", help=WORKERS_HELP + "; with --engine dask, Dask workers")
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
    p.add_argument("--via", choices=("sync", "batch-api", "batch-file"), default="sync",
                   help="openai judge: sync (requests one by one, the default); batch-api (rounds of provider "
                        "batches through /v1/files and /v1/batches: half the price, up to 24 h per round); "
                        "batch-file (round files in OpenAI's batch format for `vllm run_batch` or a runner of "
                        "your own). Run the same command again to resume: nothing is submitted twice")
    p.add_argument("--poll-every", type=float, default=60.0, help="--via batch-api: seconds between status checks")
    p.add_argument("--batch-dir", help="--via batch-file: the folder of round files (default: OUTPUT.batch-files)")
    p.add_argument("--dry-run", action="store_true",
                   help="with --via: submit nothing, say how many requests, rounds and tokens the run would take")
    p.add_argument("--price-in", type=float, help="with --via: price per million prompt tokens at the provider's "
                                                  "batch rate, to price the run (and the dry run)")
    p.add_argument("--price-out", type=float, help="with --via: price per million completion tokens (batch rate)")
    p.add_argument("--prices", help="with --via: a price table (TOML or JSON: model -> input, output per million "
                                    "tokens at the batch rate; default: $RT4CHART_PRICES)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _fail_on_arg(p)
    _judge_args(p)
    p.set_defaults(func=command("cmd_predict"))

    from rt4chart.cli.phoenix import add_parser as add_phoenix_parser
    from rt4chart.cli.runs import add_parser as add_runs_parser
    from rt4chart.cli.runs import add_report_parser

    add_runs_parser(sub)
    add_report_parser(sub)
    add_phoenix_parser(sub)

    p = sub.add_parser("insights", help="action items for the RAG team from an audited file (needs an LLM judge)")
    p.add_argument("input", help="output of rt4chart predict/batch (JSONL)")
    p.add_argument("-o", "--output", help="write the insights as JSON ('-': standard output, instead of the Markdown)")
    p.add_argument("--markdown", help="write the insights as Markdown ('-': standard output)")
    p.add_argument("--warmup", type=int, default=10, help="rows of the sequential warm-up (most issues first)")
    p.add_argument("--patience", type=int, default=3, help="stop the warm-up after this many stable steps")
    p.add_argument("--workers", type=int, default=4, help="concurrent calls in the parallel phase")
    p.add_argument("--via", choices=("sync", "batch-api", "batch-file"), default="sync",
                   help="the parallel phase: sync (concurrent calls, the default); batch-api (one round of provider "
                        "batches, half price at OpenAI; resumable by running the same command again); batch-file "
                        "(round files for `vllm run_batch`)")
    p.add_argument("--poll-every", type=float, default=60.0, help="--via batch-api: seconds between status checks")
    p.add_argument("--batch-dir", help="--via batch-file: the folder of round files (default: OUTPUT.batch-files)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    _judge_args(p)
    p.set_defaults(func=command("cmd_insights"), judge="openai")

    p = sub.add_parser("cache", help="show or clear the memo cache of judge replies ($RT4CHART_CACHE_DIR)")
    p.add_argument("action", choices=("info", "clear"), nargs="?", default="info")
    p.set_defaults(func=command("cmd_cache"))

    p = sub.add_parser("bench", help="run a judge on benchmark files and score it like score.py")
    p.add_argument("files", nargs="+")
    _table_args(p)
    p.add_argument("--gold-col", default="hallucinated", metavar="COLUMN", help="gold label column (default: "
                                                                                 "hallucinated)")
    p.add_argument("--spans-col", default="spans", metavar="COLUMN", help="gold spans column, JSON (default: spans)")
    p.add_argument("--strict", action="store_true", help="strict gold (FaithBench)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("-o", "--output", help="also write the predictions JSONL here ('-': standard output; the scores "
                                          "then go to standard error)")
    p.add_argument("--limit", type=int, help="only N records (a seeded sample with --sample-seed)")
    p.add_argument("--sample-seed", type=int)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--dry-run", action="store_true",
                   help="with --judge openai: call nothing, report the calls and prompt tokens the plan would make")
    p.add_argument("--workers", type=workers_arg, default=defaults.AUTO_WORKERS, metavar="N|auto", help=WORKERS_HELP)
    _judge_args(p)
    p.set_defaults(func=command("cmd_bench"))
    return parser
