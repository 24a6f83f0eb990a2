"""Are two versions of rt4chart's predictions the same, byte for byte? Issue 36's check that a consolidation
moved code without changing behaviour: every dev file, every judge named, on the local engine (and the Dask
engine with --dask), from a commit and from another commit or the working tree.

Usage: python benchmarks/same_predictions.py BASE [HEAD] [--judges offline,model,hybrid] [--limit N] [--dask]
       [--dev ../shared/benchmarks]
BASE and HEAD are git revisions; HEAD defaults to the working tree. Each version runs in a fresh process with
its own package on PYTHONPATH (a detached worktree for a revision) and no memo cache; prints one line per
(file, judge, engine) and ends 1 when any output differs."""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator, Optional

ROOT = Path(__file__).resolve().parents[1]
DEV_FILES = ("ragtruth_dev.jsonl", "faithbench_dev.jsonl", "halueval_qa_dev.jsonl")


@contextmanager
def tree_of(rev: Optional[str]) -> Iterator[Path]:
    """The source tree of a revision (a temporary detached worktree), or the working tree for None."""
    if rev is None:
        yield ROOT
        return
    with tempfile.TemporaryDirectory(prefix="rt4chart-rev-") as tmp:
        path = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), rev], check=True)
        try:
            yield path
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False)


def predictions(tree: Path, command: list[str], out: Path) -> str:
    """The sha256 of the output file `command` writes with the package of `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree), "RT4CHART_CACHE_DIR": str(out.parent / "cache"),
           "RT4CHART_DATA_DIR": str(out.parent / "data")}  # never the user's own cache or runs
    done = subprocess.run([sys.executable, "-m", "rt4chart", *command, "-o", str(out), "--quiet"], env=env,
                          cwd=tree, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{tree}: {' '.join(command)} ended {done.returncode}: {done.stderr.strip()[-400:]}")
    return hashlib.sha256(out.read_bytes()).hexdigest()


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base")
    p.add_argument("head", nargs="?")
    p.add_argument("--judges", default="offline,model,hybrid")
    p.add_argument("--limit", type=int, help="the first N records of each file")
    p.add_argument("--dask", action="store_true", help="also compare the Dask engine's output")
    p.add_argument("--dev", default=str(ROOT.parent / "shared" / "benchmarks"))
    args = p.parse_args(argv)
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="rt4chart-same-") as tmp:
        work = Path(tmp)
        trees = {"base": stack.enter_context(tree_of(args.base)), "head": stack.enter_context(tree_of(args.head))}
        differ = 0
        for name in DEV_FILES:
            source = Path(args.dev) / name
            lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
            data = work / name
            data.write_text("".join(lines[:args.limit] if args.limit else lines), encoding="utf-8")
            for judge in args.judges.split(","):
                engines = {"local": ["predict", str(data), "--judge", judge, "--no-cache"]}
                if args.dask:
                    engines["dask"] = ["batch", str(data), "--judge", judge, "--engine", "dask", "--workers", "2",
                                       "--no-store", "--no-journal", "--no-cache"]
                for engine, command in engines.items():
                    digests = {side: predictions(tree, command, work / f"{side}-{engine}-{judge}-{name}")
                               for side, tree in trees.items()}
                    same = digests["base"] == digests["head"]
                    differ += not same
                    print(f"{name:24} {judge:8} {engine:6} {'same' if same else 'DIFFERENT'} {digests['head'][:12]}",
                          flush=True)
        return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
