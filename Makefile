# The two commands of the README: `make app` (set up and run the dashboard, hybrid judge)
# and `make test` (set up and run every test, the browser test included). Without make:
# ./scripts/app.sh and ./scripts/test.sh do the same.
.PHONY: app test test-fast bench

app:
	./scripts/app.sh

test:
	./scripts/test.sh

# Everyday lane: the dev setup only (no browser, PostgreSQL or side environments to install), lint, types and
# the tests that need no browser, service, killed process or long run; `make test` (and CI) runs everything.
test-fast:
	./scripts/test.sh --fast

bench:
	./scripts/setup.sh
	.venv/bin/rt4chart bench ../shared/benchmarks/ragtruth_dev.jsonl ../shared/benchmarks/faithbench_dev.jsonl ../shared/benchmarks/halueval_qa_dev.jsonl
