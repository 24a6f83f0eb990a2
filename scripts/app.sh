#!/usr/bin/env bash
# Set up the app (once) and serve it on http://127.0.0.1:8501 (the hybrid judge by default, as docs/benchmarks.md measures it best).
#   RT4CHART_PORT=8600    another port (the app refuses to start when the port is taken)
#   RT4CHART_ADDRESS=0.0.0.0  serve to the network (a demo); anyone who reaches it can use your judge settings;
#                            the Checkpoint field then offers only the shipped verifier and RT4CHART_MODELS
#   RT4CHART_MODELS=/srv/a:/srv/b  the checkpoint folders a network-served app may open
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
port="${RT4CHART_PORT:-8501}"
address="${RT4CHART_ADDRESS:-127.0.0.1}"
if ! .venv/bin/python - "$address" "$port" <<'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
except OSError:
    sys.exit(1)
PY
then
  echo "app.sh: port $port on $address is taken; choose another: RT4CHART_PORT=8502 make app" >&2
  exit 1
fi
echo "rt4chart: http://$address:$port" >&2
exec .venv/bin/streamlit run app.py --server.headless true --server.address "$address" --server.port "$port" \
  --browser.gatherUsageStats false
