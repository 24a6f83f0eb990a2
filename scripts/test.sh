#!/usr/bin/env bash
# Set up everything the tests need (venv, test tools, Debian chromium when root) and run lint + tests.
# `--fast` (make test-fast): the dev setup only, and the tests that need no browser, service or long run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fast" ]; then
  shift
  ./scripts/setup.sh --dev
  set -- -m "not slow and not browser" "$@"
else
  ./scripts/setup.sh --dev --browser --postgres --phoenix --formats
fi
.venv/bin/ruff check rt4chart app_pages app.py tests benchmarks sample_data training
.venv/bin/mypy
.venv/bin/python -m pytest -q "$@"
