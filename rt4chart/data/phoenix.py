"""The round trip with an Arize Phoenix server, through Phoenix's own client (`pip install 'rt4chart[phoenix]'`):

* `pull`: a project's spans, written as JSONL in Phoenix's span shape, which `predict`, `batch`, `bench` and
  the app read as one record per trace (rt4chart.data.traces);
* `annotate`: each audited trace's verdict written back as an annotation of its root span (label, score, and
  an explanation that quotes each flagged claim with its evidence sentence), so the team sees rt4chart's
  verdicts next to its traces;
* `dataset`: a stored run as a Phoenix dataset (question and passages in, answer out, the verdicts as metadata).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Optional

from rt4chart.core.errors import InputError

ANNOTATION = "rt4chart hallucination"
EXPLANATION_CHARS = 4000


def client(endpoint: str, api_key: Optional[str] = None):
    try:
        from phoenix.client import Client
    except ImportError:
        raise InputError("talking to Phoenix needs its client: pip install 'rt4chart[phoenix]' "
                         "(arize-phoenix-client)") from None
    return Client(base_url=endpoint, api_key=api_key)


def _failed(what: str, endpoint: str, exc: Exception) -> InputError:
    return InputError(f"Phoenix at {endpoint}: {what} failed ({type(exc).__name__}: {str(exc)[:300]}); check "
                      "--endpoint (the server's URL, e.g. http://127.0.0.1:6006), --project and the server's log")


def pull(endpoint: str, project: str, output: str, limit: int = 100_000, api_key: Optional[str] = None) -> int:
    """Write the project's spans to `output` (JSONL, one span per line, Phoenix's span shape); their number."""
    try:
        spans = client(endpoint, api_key).spans.get_spans(project_identifier=project, limit=limit)
    except InputError:
        raise
    except Exception as exc:  # httpx errors, a missing project: said with the endpoint
        raise _failed(f"reading the spans of project {project!r}", endpoint, exc) from None
    if not spans:
        raise InputError(f"Phoenix at {endpoint}: project {project!r} has no spans")
    tmp = Path(f"{output}.partial")
    with tmp.open("w", encoding="utf-8") as out:
        for span in spans:
            out.write(json.dumps(span, ensure_ascii=False, default=str) + "\n")
    tmp.replace(output)
    return len(spans)


def explanation(line: dict) -> str:
    """The answer's verdict in words: every flagged claim, its verdict, and its evidence sentence."""
    if line.get("status") == "error":
        return f"not audited: {line.get('error')}"
    flagged = [c for c in line.get("claims") or [] if c.get("verdict") in ("contradicted", "baseless", "unverified")]
    if not flagged:
        return f"all {len(line.get('claims') or [])} claims are supported by the retrieved passages"
    parts = []
    for c in flagged:
        evidence = next((e["text"] for e in c.get("evidence") or []
                         if e.get("relation") in ("contradicts", "nearest", "supports")), None)
        parts.append(f"{c['verdict']}: \"{c['text']}\"" + (f" (context: \"{evidence}\")" if evidence else "")
                     + (f" — {c['rationale']}" if c.get("rationale") else ""))
    text = "; ".join(parts)
    return text if len(text) <= EXPLANATION_CHARS else text[:EXPLANATION_CHARS - 1] + "…"


def span_annotations(lines: Iterable[dict], root_of: dict[str, str], name: str, annotator: str) -> tuple[list[dict], list[str]]:
    """(span annotations, ids of lines whose trace has no root span in the project)."""
    out, missing = [], []
    for line in lines:
        span_id = root_of.get(str(line.get("id")))
        if span_id is None:
            missing.append(str(line.get("id")))
            continue
        status = line.get("status") or "error"
        result: dict[str, Any] = {"label": status, "explanation": explanation(line)}
        if isinstance(line.get("score"), (int, float)):
            result["score"] = float(line["score"])
        out.append({"name": name, "annotator_kind": annotator, "span_id": span_id, "result": result,
                    "metadata": {"rt4chart_claims": len(line.get("claims") or []),
                                 "rt4chart_flagged_spans": line.get("spans") or []}})
    return out, missing


def annotate(endpoint: str, project: str, predictions: list[dict], name: str = ANNOTATION, annotator: str = "CODE",
             api_key: Optional[str] = None) -> tuple[int, list[str]]:
    """Write each prediction (its id is the trace id) as an annotation of its trace's root span; returns
    (annotations written, ids without a root span in the project)."""
    phoenix = client(endpoint, api_key)
    try:
        roots = phoenix.spans.get_spans(project_identifier=project, parent_id="null", limit=1_000_000)
    except Exception as exc:
        raise _failed(f"reading the root spans of project {project!r}", endpoint, exc) from None
    root_of = {s["context"]["trace_id"]: s["context"]["span_id"] for s in roots}
    items, missing = span_annotations(predictions, root_of, name, annotator)
    if items:
        try:
            for start in range(0, len(items), 500):
                phoenix.spans.log_span_annotations(span_annotations=items[start:start + 500], sync=True)
        except Exception as exc:
            raise _failed("writing the span annotations", endpoint, exc) from None
    return len(items), missing


def dataset(endpoint: str, store, run_id: str, name: str, api_key: Optional[str] = None) -> tuple[str, int]:
    """A stored run as a Phoenix dataset; returns (dataset id, examples)."""
    run = store.get_run(run_id)
    reports = dict(store.reports(run.id))
    inputs, outputs, metadata = [], [], []
    for record, index in zip(store.records(run.id), store.row_index(run.id)):
        report = reports.get(record["id"])
        inputs.append({"question": record.get("question") or "", "context": record["context"]})
        outputs.append({"answer": record["answer"]})
        metadata.append({"id": record["id"], "rt4chart_status": index["status"], "rt4chart_score": index["score"],
                         "rt4chart_flagged": [record["answer"][s.start:s.end] for s in report.spans] if report else [],
                         "rt4chart_run": run.id})
    if not inputs:
        raise InputError(f"run {run.name!r} has no rows: nothing to export")
    try:
        made = client(endpoint, api_key).datasets.create_dataset(
            name=name, inputs=inputs, outputs=outputs, metadata=metadata,
            dataset_description=f"rt4chart run {run.name} ({run.judge}, {run.created})")
    except Exception as exc:
        raise _failed(f"creating dataset {name!r}", endpoint, exc) from None
    return str(made.id), len(inputs)
