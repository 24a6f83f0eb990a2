# The two commands of the README: `make app` (set up and run the dashboard, offline judge)
# and `make test` (set up and run every test, the browser test included).
.PHONY: app test bench

app:
	./scripts/setup.sh
	.venv/bin/streamlit run app.py --server.headless true --server.address $${RT4CHART_ADDRESS:-127.0.0.1} --browser.gatherUsageStats false

test:
	./scripts/setup.sh --dev --browser
	.venv/bin/ruff check rt4chart pages app.py tests benchmarks sample_data
	.venv/bin/python -m pytest -q

bench:
	./scripts/setup.sh
	.venv/bin/rt4chart bench ../shared/benchmarks/ragtruth_dev.jsonl ../shared/benchmarks/faithbench_dev.jsonl ../shared/benchmarks/halueval_qa_dev.jsonl
