"""`rt4chart phoenix …`: the round trip with an Arize Phoenix server — pull a project's spans (then `predict` or
`batch` them like any file), write the verdicts back as span annotations, export a stored run as a dataset."""
from __future__ import annotations

import os
import sys


def _endpoint(args) -> str:
    return args.endpoint or os.environ.get("PHOENIX_COLLECTOR_ENDPOINT") or "http://127.0.0.1:6006"


def _key(args):
    return os.environ.get("PHOENIX_API_KEY") or None


def cmd_pull(args) -> int:
    from rt4chart.data.phoenix import pull

    n = pull(_endpoint(args), args.project, args.output, limit=args.limit, api_key=_key(args))
    print(f"rt4chart: {n} spans of project {args.project!r} -> {args.output} (`rt4chart predict {args.output} -o "
          "audited.jsonl` audits each trace)", file=sys.stderr)
    return 0


def cmd_annotate(args) -> int:
    from rt4chart.data.phoenix import annotate
    from rt4chart.data.records import iter_rows

    lines = list(iter_rows(args.predictions))
    written, missing = annotate(_endpoint(args), args.project, lines, name=args.name,
                                annotator=args.annotator_kind, api_key=_key(args))
    print(f"rt4chart: {written} span annotations {args.name!r} written to project {args.project!r}", file=sys.stderr)
    if missing:
        print(f"rt4chart: {len(missing)} predictions have no trace in the project (first: {missing[0]!r}); they "
              "were not written", file=sys.stderr)
    return 1 if missing else 0


def cmd_dataset(args) -> int:
    from rt4chart.data.phoenix import dataset
    from rt4chart.store import Store

    store = Store()
    run = store.get_run(args.run)
    dataset_id, n = dataset(_endpoint(args), store, run.id, args.name or run.name, api_key=_key(args))
    print(f"rt4chart: run {run.name!r} -> Phoenix dataset {args.name or run.name!r} ({n} examples, id {dataset_id})",
          file=sys.stderr)
    return 0


def add_parser(sub) -> None:
    phoenix = sub.add_parser("phoenix", help="Arize Phoenix: pull a project's spans, write verdicts back as span "
                                             "annotations, export a run as a dataset (pip install 'rt4chart[phoenix]')")
    verbs = phoenix.add_subparsers(dest="verb", required=True)

    def common(p) -> None:
        p.add_argument("--endpoint", help="the Phoenix server (default: $PHOENIX_COLLECTOR_ENDPOINT or "
                                          "http://127.0.0.1:6006; a key in $PHOENIX_API_KEY)")

    p = verbs.add_parser("pull", help="a project's spans as JSONL, read by predict/batch/bench/the app as one "
                                      "record per trace")
    common(p)
    p.add_argument("--project", required=True)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--limit", type=int, default=100_000, help="at most this many spans")
    p.set_defaults(func=cmd_pull)
    p = verbs.add_parser("annotate", help="write predict/batch output back as annotations of each trace's root span")
    common(p)
    p.add_argument("predictions", help="output of rt4chart predict/batch on pulled spans (ids are trace ids)")
    p.add_argument("--project", required=True)
    p.add_argument("--name", default="rt4chart hallucination", help="the annotation's name in Phoenix")
    p.add_argument("--annotator-kind", default="CODE", choices=("CODE", "LLM", "HUMAN"),
                   help="CODE for the offline/model judges, LLM for the openai judge")
    p.set_defaults(func=cmd_annotate)
    p = verbs.add_parser("dataset", help="a stored run as a Phoenix dataset (inputs, outputs, verdicts as metadata)")
    common(p)
    p.add_argument("run", help="run id or unique name")
    p.add_argument("--name", help="the dataset's name (default: the run's)")
    p.set_defaults(func=cmd_dataset)
