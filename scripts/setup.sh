#!/usr/bin/env bash
# Set up rt4chart on a fresh machine: a virtual environment with the package, the app and
# (with --dev) the test tools; with --browser also Debian's headless Chromium for the browser test.
set -euo pipefail
cd "$(dirname "$0")/.."
want_dev=0; want_browser=0
for arg in "$@"; do
  case "$arg" in
    --dev) want_dev=1 ;;
    --browser) want_browser=1 ;;
    *) echo "setup.sh: unknown option $arg (use --dev, --browser)" >&2; exit 2 ;;
  esac
done
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
extras="app"
[ "$want_dev" = 1 ] && extras="app,dev"
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
set +o pipefail
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$extras]" 2>&1 | grep -v '^WARNING: Location'
status=${PIPESTATUS[0]}
set -o pipefail
[ "$status" = 0 ] || { echo "setup.sh: pip install of rt4chart[$extras] failed (exit $status)" >&2; exit 1; }
.venv/bin/python -c "import rt4chart, nltk" || { echo "setup.sh: installing rt4chart failed" >&2; exit 1; }
if [ "$want_browser" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup.sh: installing Debian's chromium for the browser test" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null
  else
    echo "setup.sh: chromium is missing; the browser test will be skipped (apt-get install chromium)" >&2
  fi
fi
