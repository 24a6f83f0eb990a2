"""`rt4chart --help` and `--version` start fast: they import no judge, store or heavy library."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("nltk", "pydantic", "sqlalchemy", "numpy", "pandas", "onnxruntime", "openai", "torch", "dask")
PROBE = """
import json, sys
from rt4chart.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["audit", "--help"], ["runs", "list", "--help"]])
def test_help_and_version_import_no_heavy_library(argv):
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True,
                          timeout=60, check=True)
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    assert "rt4chart" in done.stdout


def test_a_command_still_gets_its_function_when_it_runs(tmp_path):
    context, answer = tmp_path / "c.txt", tmp_path / "a.txt"
    context.write_text("The bridge opened in 1998.")
    answer.write_text("The bridge opened in 1998.")
    done = subprocess.run([sys.executable, "-m", "rt4chart", "audit", "--judge", "offline",
                           "--context", str(context), "--answer",
                           str(answer), "--format", "json", "--no-cache"], capture_output=True, text=True, timeout=120,
                          env={"RT4CHART_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path),
                               "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hallucinated"] is False
