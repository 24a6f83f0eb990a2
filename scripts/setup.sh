#!/usr/bin/env bash
# Set up rt4chart on a fresh machine: a virtual environment with the package, the app and
# (with --dev) the test tools; with --browser also Debian's headless Chromium, with --postgres Debian's
# PostgreSQL server (both for the tests), with --phoenix an Arize Phoenix server in its own environment
# (.venv-phoenix: its many pins stay out of rt4chart's; the tests start it on loopback), with --formats the
# packages whose files the format tests read (.venv-formats: ragas, deepeval, langchain, langsmith, trulens).
# A second run with nothing changed installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
want_dev=0; want_browser=0; want_postgres=0; want_phoenix=0; want_formats=0
for arg in "$@"; do
  case "$arg" in
    --dev) want_dev=1 ;;
    --browser) want_browser=1 ;;
    --postgres) want_postgres=1 ;;
    --phoenix) want_phoenix=1 ;;
    --formats) want_formats=1 ;;
    *) echo "setup.sh: unknown option $arg (use --dev, --browser, --postgres, --phoenix, --formats)" >&2; exit 2 ;;
  esac
done
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
extras="app"
[ "$want_dev" = 1 ] && extras="app,dev"
# The environment is current when the project's requirements and the extras asked for are unchanged.
stamp=".venv/.rt4chart-setup"
base="$(cat pyproject.toml requirements.txt | sha256sum | cut -c1-16) $(.venv/bin/python -V 2>&1)"
current="$(cat "$stamp" 2>/dev/null || true)"
if [ "$current" != "$base|$extras" ] && [ "$current" != "$base|app,dev" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
  log=$(mktemp)
  echo "setup.sh: installing rt4chart[$extras] into .venv (a first setup downloads ~300 MB: a few minutes)..." >&2
  started=$(date +%s)
  # pip runs in the background; every 10 s one line says how far it is, so a long first setup shows it moves
  .venv/bin/python -m pip install --disable-pip-version-check --progress-bar off -e ".[$extras]" >"$log" 2>&1 &
  pip_pid=$!
  ticks=0
  while kill -0 "$pip_pid" 2>/dev/null; do
    sleep 1
    ticks=$((ticks + 1))
    if [ $((ticks % 10)) = 0 ] && kill -0 "$pip_pid" 2>/dev/null; then
      last=$(grep -E '^(Collecting|Installing collected)' "$log" | tail -1 | cut -c1-60 || true)
      echo "setup.sh:   $(( $(date +%s) - started )) s, $(grep -c '^Collecting' "$log" || true) packages so far${last:+ ($last)}" >&2
    fi
  done
  if ! wait "$pip_pid"; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup.sh: pip install of rt4chart[$extras] failed" >&2
    exit 1
  fi
  rm -f "$log"  # pip's and setuptools' warning blocks are noise once the install worked
  echo "setup.sh: .venv is ready ($(( $(date +%s) - started )) s)" >&2
  .venv/bin/python -c "import rt4chart, nltk" || { echo "setup.sh: installing rt4chart failed" >&2; exit 1; }
  echo "$base|$extras" > "$stamp"
fi
apt_install() {  # Debian packages for the tests, when root; otherwise say what is missing
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup.sh: installing Debian's $*" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@") >/dev/null
  else
    echo "setup.sh: $* missing; the tests that need them are skipped (apt-get install $*)" >&2
  fi
}
if [ "$want_browser" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  apt_install chromium chromium-driver
fi
if [ "$want_postgres" = 1 ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  apt_install postgresql
fi
side_venv() {  # side_venv DIR STAMP PACKAGE...: a venv of its own with exactly these packages
  local dir=$1 stamp=$2; shift 2
  [ "$(cat "$dir/.rt4chart-setup" 2>/dev/null || true)" = "$stamp" ] && return 0
  [ -x "$dir/bin/python" ] || "$PY" -m venv "$dir"
  local log; log=$(mktemp)
  if ! "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup.sh: pip install of $* into $dir failed" >&2
    exit 1
  fi
  rm -f "$log"
  echo "$stamp" > "$dir/.rt4chart-setup"
}
# the server the round-trip tests run against, and the writers the format tests read (tested versions)
PHOENIX_SERVER="arize-phoenix==20.26.1"
FORMAT_WRITERS="ragas==0.4.3 langchain-community==0.3.31 deepeval==4.3.1 langsmith==0.15.1 trulens-core==2.16.0 pyarrow \
  openinference-instrumentation-langchain==0.1.80 opentelemetry-sdk==1.45.2 opentelemetry-exporter-otlp-proto-common==1.45.2"
[ "$want_phoenix" = 1 ] && side_venv .venv-phoenix "$PHOENIX_SERVER" $PHOENIX_SERVER
[ "$want_formats" = 1 ] && side_venv .venv-formats "$FORMAT_WRITERS" $FORMAT_WRITERS
exit 0
