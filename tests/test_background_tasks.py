"""The app's background tasks (the Insights page's LLM calls): the same work asked twice is one task, a failed
task is started again, and the server keeps a bounded number of finished ones."""
import threading

import pytest

pytest.importorskip("streamlit")

from app_pages import _background  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_board():
    _background._board.clear()
    yield
    _background._board.clear()


def test_the_same_key_is_one_task_and_its_result_is_kept():
    gate, calls = threading.Event(), []

    def work():
        calls.append(1)
        gate.wait(10)
        return "report"

    first = _background.start("k", work)
    assert first.running and _background.start("k", work) is first  # asked again while running: the same task
    gate.set()
    first.future.result(timeout=10)
    assert _background.start("k", work) is first and calls == [1]  # finished well: kept, not run again
    assert _background.task("k").outcome() == ("report", None)
    assert _background.task(None) is None and _background.task("other") is None


def test_a_failed_task_is_started_again():
    def broken():
        raise ValueError("the endpoint refused the model")

    failed = _background.start("k", broken)
    failed.future.exception(timeout=10)
    result, error = failed.outcome()
    assert result is None and isinstance(error, ValueError)
    again = _background.start("k", lambda: "report")
    assert again is not failed and again.future.result(timeout=10) == "report"


def test_the_server_keeps_a_bounded_number_of_finished_tasks():
    for n in range(_background.KEPT + 5):
        _background.start(f"k{n}", lambda n=n: n).future.result(timeout=10)
    kept = [k for k in (f"k{n}" for n in range(_background.KEPT + 5)) if _background.task(k) is not None]
    assert len(kept) == _background.KEPT and kept[-1] == f"k{_background.KEPT + 4}" and "k0" not in kept
