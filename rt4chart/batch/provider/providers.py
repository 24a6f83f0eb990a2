"""Where a round's requests go: OpenAI's Batch API (any server that follows it), or batch files for a runner
of one's own (`vllm run_batch -i IN -o OUT`). Both take the OpenAI batch file format."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from rt4chart.batch.provider.deferred import Outcome
from rt4chart.batch.provider.lines import ENDPOINT, read_results, request_lines
from rt4chart.core.errors import JudgeConfigError
from rt4chart.judges.llm.client import server_message

TERMINAL = ("completed", "failed", "expired", "cancelled")
FAILED_BATCH = 422  # the status a request of a batch the provider failed is answered with: not retried
NOT_RESUBMITTED = "; not resubmitted, as it would fail again"


@dataclass
class Progress:
    status: str          # the provider's batch status (validating, in_progress, finalizing, completed, ...)
    done: int = 0
    failed: int = 0
    total: int = 0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


def _said(exc: Exception, client: Any) -> str:
    """An SDK error in a few words: its status and the provider's own message, without the client's key."""
    status = getattr(exc, "status_code", None)
    message = server_message(exc, getattr(client, "api_key", None), limit=200)
    return f"HTTP {status}: {message}" if status else f"{type(exc).__name__}: {message}"


class WaitingForRunner(Exception):
    """Batch files were written and their results are not there yet: the user runs the runner, then the
    same command again."""


class OpenAIBatchAPI:
    """`/v1/files` (purpose "batch") and `/v1/batches` through the official client."""

    name = "batch-api"
    max_requests = 50_000            # OpenAI's limits per batch
    max_bytes = 200 * 1024 * 1024

    def __init__(self, client: Any, sleep: Callable[[float], None] = time.sleep, create_attempts: int = 5,
                 retry_wait_s: float = 30.0):
        self.client, self.sleep = client, sleep
        self.create_attempts, self.retry_wait_s = create_attempts, retry_wait_s

    def submit(self, requests: dict[str, dict], label: str) -> str:
        """Upload the round's file and create its batch. A rate limit, a server error or a lost connection is
        retried (with a growing wait) up to `create_attempts` times; a refusal, or the last failure, is one
        `JudgeConfigError` in the provider's words. A file uploaded for a batch that was not created is deleted."""
        import openai

        existing = self.find(label)
        if existing is not None:  # created before a kill, or by another process on the same work: not paid twice
            return existing
        data = b"".join(request_lines(requests))
        for attempt in range(self.create_attempts):
            uploaded = None
            try:
                uploaded = self.client.files.create(file=(f"{label}.jsonl", data), purpose="batch")
                batch = self.client.batches.create(input_file_id=uploaded.id, endpoint=ENDPOINT,
                                                   completion_window="24h", metadata={"rt4chart": label})
                return batch.id
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
                self._delete(uploaded)
                if attempt + 1 == self.create_attempts:
                    raise JudgeConfigError(f"the batch endpoint failed {self.create_attempts} times to take the "
                                           f"round's batch ({_said(exc, self.client)}); nothing was submitted for it: run the same "
                                           "command again later") from None
                self.sleep(self.retry_wait_s * (attempt + 1))
            except openai.APIStatusError as exc:
                self._delete(uploaded)
                hint = ("check the key, the base URL and that it offers /v1/batches"
                        if exc.status_code in (401, 403, 404) else
                        "the round's file is too large for it: lower the window size" if exc.status_code == 413 else
                        "nothing was submitted for this round")
                raise JudgeConfigError(f"the batch endpoint refused the batch ({_said(exc, self.client)}): {hint}") from None
        raise AssertionError("unreachable")

    def find(self, label: str, scan: int = 1000) -> Optional[str]:
        """The batch already created with this label (`metadata.rt4chart`) among the provider's newest `scan`,
        unless it failed or was cancelled; None when there is none or the provider cannot list batches."""
        import openai

        try:
            for n, batch in enumerate(self.client.batches.list(limit=100)):
                if n >= scan:
                    break
                metadata = getattr(batch, "metadata", None) or {}
                if isinstance(metadata, dict) and metadata.get("rt4chart") == label and \
                        getattr(batch, "status", None) not in ("failed", "cancelled", "cancelling"):
                    return str(batch.id)
        except (openai.APIStatusError, openai.APIConnectionError):
            return None  # a provider without the list endpoint: the round is created as before
        return None

    def _delete(self, uploaded: Any) -> None:
        """Remove an uploaded input file whose batch was not created (best effort: it is the provider's)."""
        if uploaded is None:
            return
        try:
            self.client.files.delete(uploaded.id)
        except Exception:  # noqa: BLE001 - a file left behind costs storage, never a result; the run goes on
            pass

    def cancel(self, handle: str) -> bool:
        """Ask the provider to cancel the batch; True: it ends it (cancelling -> cancelled, with the output of
        the requests that ran), so it is polled on and collected."""
        self.client.batches.cancel(handle)
        return True

    def progress(self, handle: str) -> Progress:
        batch = self.client.batches.retrieve(handle)
        counts = getattr(batch, "request_counts", None)
        return Progress(batch.status, int(getattr(counts, "completed", 0) or 0),
                        int(getattr(counts, "failed", 0) or 0), int(getattr(counts, "total", 0) or 0))

    def results(self, handle: str, custom_ids: list[str]) -> list[tuple[str, Outcome]]:
        """Every request's answer: its output or error line, else (expired, cancelled, failed batch, a partial
        output file) an error outcome in the provider's words, which the next round retries."""
        import openai

        batch = self.client.batches.retrieve(handle)
        found: dict[str, Outcome] = {}
        lost: list[str] = []
        for file_id in (getattr(batch, "output_file_id", None), getattr(batch, "error_file_id", None)):
            if file_id:
                try:
                    text = self.client.files.content(file_id).text
                except (openai.NotFoundError, openai.InternalServerError, openai.APIConnectionError) as exc:
                    lost.append(f"its file {file_id} could not be read ({_said(exc, self.client)})")
                    continue  # its requests have no answer: asked again in the next round
                for custom_id, outcome in read_results(text.splitlines(), f"batch {handle} file {file_id}"):
                    if custom_id in found and found[custom_id].status_code == 200:
                        continue
                    found[custom_id] = outcome
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        why = "; ".join([str(getattr(e, "message", e)) for e in errors] + lost)[:300]
        if batch.status == "failed":  # the provider refused the batch as sent: the same lines would fail again
            missing = Outcome(status_code=FAILED_BATCH, message=f"the provider failed batch {handle} without "
                                                                f"answering it" + (f" ({why})" if why else "")
                                                                + NOT_RESUBMITTED)
        else:  # expired, cancelled, a lost file: asked again in the next round
            missing = Outcome(status_code=503, message=f"the provider's batch {handle} ended {batch.status} with no "
                                                       f"answer to this request" + (f" ({why})" if why else ""))
        return [(cid, found.get(cid, missing)) for cid in custom_ids]


class BatchFiles:
    """Round files in a folder: `round-N.input.jsonl` written here; `round-N.output.jsonl` written by the runner
    (`vllm run_batch -i round-N.input.jsonl -o round-N.output.jsonl`)."""

    name = "batch-file"
    max_requests = 10_000_000
    max_bytes = 1 << 62

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)

    def _paths(self, handle: str) -> tuple[Path, Path]:
        return self.folder / f"{handle}.input.jsonl", self.folder / f"{handle}.output.jsonl"

    def submit(self, requests: dict[str, dict], label: str) -> str:
        self.folder.mkdir(parents=True, exist_ok=True)
        source, _ = self._paths(label)
        tmp = source.with_suffix(".partial")
        tmp.write_bytes(b"".join(request_lines(requests)))
        tmp.replace(source)
        return label

    def cancel(self, handle: str) -> bool:
        """Nothing to tell a runner of one's own: the results that are there are collected, the rest is
        cancelled (False when there are none)."""
        return self._paths(handle)[1].exists()

    def progress(self, handle: str) -> Progress:
        source, out = self._paths(handle)
        if out.exists():
            return Progress("completed")
        raise WaitingForRunner(f"round requests are in {source}; run them, e.g. `vllm run_batch -i {source} -o {out} "
                               "--model MODEL`, then run this command again to continue")

    def results(self, handle: str, custom_ids: list[str]) -> list[tuple[str, Outcome]]:
        _, out = self._paths(handle)
        found = dict(read_results(out.read_text(encoding="utf-8").splitlines(), str(out)))
        missing = Outcome(status_code=503, message=f"{out} has no result for this request")
        return [(cid, found.get(cid, missing)) for cid in custom_ids]


def wait_for(provider, handle: str, poll_every_s: float, sleep: Callable[[float], None],
             report: Optional[Callable[[Progress], None]] = None,
             cancelled: Callable[[], bool] = lambda: False) -> Optional[Progress]:
    """Poll until the provider's batch ends. When `cancelled()` turns true, the batch is cancelled at the
    provider and polled on until it ends; None: the provider has nothing to collect (cancelled batch files)."""
    asked = False
    while True:
        if not asked and cancelled():
            asked = True
            if not provider.cancel(handle):
                return None
        state = provider.progress(handle)
        if report:
            report(state)
        if state.terminal:
            return state
        sleep(poll_every_s)
