#!/usr/bin/env bash
# Set up everything the tests need (venv, test tools, Debian chromium when root) and run lint + tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --dev --browser --postgres --phoenix --formats
.venv/bin/ruff check rt4chart app_pages app.py tests benchmarks sample_data training
.venv/bin/mypy
.venv/bin/python -m pytest -q "$@"
