"""The app's side of batch jobs (`rt4chart.batch.jobs`): a batch is handed to a worker process, so it goes on
when its page is left, reloaded or closed, and after the app restarts; every page lists the running jobs.

A page only watches a job: it reads the job's progress file, and Cancel asks the worker to stop. The job's
rows go to the run store, so a finished job is read back as a stored run.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import streamlit as st

from rt4chart.batch import jobs
from rt4chart.core.config import AuditConfig
from rt4chart.judges.base import Judge
from rt4chart.judges.spec import JudgeSpec


@st.cache_resource(show_spinner=False)
def _resumed_once(root: str) -> list[str]:
    """Once per app process: the jobs an earlier process left interrupted go on (those needing no API key)."""
    return jobs.resume_interrupted(Path(root))


def root() -> Path:
    """The jobs folder, beside the run store; interrupted jobs are launched again the first time it is asked for."""
    folder = jobs.jobs_root()
    _resumed_once(str(folder))
    return folder


def same_job(fingerprint: str) -> Optional[jobs.JobState]:
    """The newest job of exactly this batch, if it has not ended done (a done one is a stored run)."""
    job = jobs.find_same(root(), fingerprint)
    return job if job is not None and job.status != "done" else None


def start(dataset, *, run_name: str, judge: Judge, config: AuditConfig, mapping: dict,
          fingerprint: str) -> jobs.JobState:
    """A job for the dataset, launched: a new one, or the same batch's earlier job going on from its journal. The
    worker reads the upload's own bytes with the reader that read them here (a run reopened from the store: its
    rows); the judge travels as its spec, its API key through the worker's environment only."""
    secret = judge.secret_options().get("api_key")
    earlier = same_job(fingerprint)
    if earlier is not None:
        if not earlier.active:
            jobs.launch(earlier.folder, secret)
        return jobs.state_of(earlier.folder) or earlier
    source = (jobs.JobInput(dataset.name, dataset.data, dataset.delimiter) if dataset.data is not None
              else jobs.JobInput.of_rows(dataset.rows))
    request = jobs.create(root(), source, title=dataset.name, run_name=run_name, judge=JudgeSpec.of(judge),
                          config=config, mapping=mapping, needs_key=bool(secret))
    folder = root() / request.id
    jobs.launch(folder, secret)
    return jobs.state_of(folder) or jobs.JobState(request, folder, "starting")


def state_of(job_id: str) -> Optional[jobs.JobState]:
    return jobs.state_of(root() / job_id) if job_id.isalnum() else None


def cancel(job_id: str) -> None:
    if job_id.isalnum():
        jobs.cancel(root() / job_id)


def progress_line(job: jobs.JobState) -> str:
    if job.status == "starting":
        return "Starting the worker…"
    eta = job.eta_s()
    return f"{job.done}/{job.total} rows · ETA {eta:.0f} s" if eta is not None else f"{job.done}/{job.total} rows"


def sidebar_list() -> None:
    """The jobs running now (every session's: two analysts see each other's), with progress and Cancel."""
    if not any(j.active for j in jobs.list_jobs(root())):
        return

    @st.fragment(run_every=2.0)
    def panel() -> None:
        live = [j for j in jobs.list_jobs(root()) if j.active]
        st.markdown(f"**Batch jobs running: {len(live)}**" if live else "**No batch job is running now.**")
        for job in live:
            share = job.done / job.total if job.total else 0.0
            st.progress(min(1.0, share), text=f"{job.request.title[:40]}: {progress_line(job)}")
            st.button("Stop this job", key=f"w.job.side.{job.request.id}", on_click=cancel, args=(job.request.id,),
                      help="Stops the batch; the rows audited so far are kept as a cancelled run.")

    with st.sidebar:
        panel()
