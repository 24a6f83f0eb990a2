# The two commands of the README: `make app` (set up and run the dashboard, offline judge)
# and `make test` (set up and run every test, the browser test included). Without make:
# ./scripts/app.sh and ./scripts/test.sh do the same.
.PHONY: app test test-fast bench

app:
	./scripts/app.sh

test:
	./scripts/test.sh

# Everyday lane: lint, types and the pure/unit tests (no browser, PostgreSQL, Dask, killed processes or
# large inputs), under ~2 minutes; `make test` (and CI) still runs everything.
test-fast:
	./scripts/test.sh -m "not slow and not browser"

bench:
	./scripts/setup.sh
	.venv/bin/rt4chart bench ../shared/benchmarks/ragtruth_dev.jsonl ../shared/benchmarks/faithbench_dev.jsonl ../shared/benchmarks/halueval_qa_dev.jsonl
