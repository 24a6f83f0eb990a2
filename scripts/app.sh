#!/usr/bin/env bash
# Set up the app and serve it on 127.0.0.1:8501 (offline judge by default; RT4CHART_ADDRESS to change).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec .venv/bin/streamlit run app.py --server.headless true --server.address "${RT4CHART_ADDRESS:-127.0.0.1}" \
  --browser.gatherUsageStats false
