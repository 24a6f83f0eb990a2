"""The stored run of a batch: the writer that keeps a batch's rows as a run (`batch.run.run_spec`, which the CLI's
batch and the app's batch jobs run, and the provider rounds) and the manifest it is stored with."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Optional

from rt4chart.auditing.manifest import manifest_of
from rt4chart.batch.spec import RunSpec
from rt4chart.store.writer import RunWriter


def run_manifest(spec: RunSpec) -> dict:
    return manifest_of(spec.judge, spec.config).model_dump(mode="json")


def open_writer(spec: RunSpec, source: str, fingerprint: str = "", resume_run: Optional[str] = None,
                batch_rows: int = 200) -> Optional[RunWriter]:
    """The stored run to write into (None without a store): `resume_run` (the run a resumed journal was
    writing) while it is still unfinished, else a new one named `spec.run_name` or after the source and the
    time. Another batch of the same input and settings never writes into it."""
    if spec.store is None:
        return None
    run = spec.store.find_run(resume_run) if resume_run else None
    if run is not None and run.status != "running":
        run = None
    if run is None:
        name = spec.run_name or f"{Path(source).name} {datetime.now().strftime('%Y-%m-%d %H:%M')}"
        run = spec.store.create_run(name, judge=spec.judge.name, model=spec.judge.model, source=str(source),
                                    manifest=run_manifest(spec), mapping=spec.mapping or {}, fingerprint=fingerprint)
    return RunWriter(spec.store, run, batch_rows=batch_rows)
