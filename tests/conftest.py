"""Shared fixtures: user state in a temp dir, no real API settings leak into tests."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_user_state(tmp_path, monkeypatch):
    """Every test gets its own cache dir and no API settings from the developer's shell."""
    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RT4CHART_DATA_DIR", str(tmp_path / "data"))  # the run store (SQLite) of this test
    monkeypatch.delenv("RT4CHART_DB", raising=False)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RT4CHART_MODEL"):
        monkeypatch.delenv(var, raising=False)
    yield


@pytest.fixture(autouse=True, scope="session")
def the_users_run_store_is_never_touched():
    """Whatever a test starts (the CLI in a subprocess included), the user's own run store is not written."""
    from platformdirs import user_data_dir

    store = __import__("pathlib").Path(user_data_dir("rt4chart")) / "runs.sqlite3"
    before = store.stat().st_mtime_ns if store.exists() else None
    yield
    after = store.stat().st_mtime_ns if store.exists() else None
    assert after == before, f"a test wrote into the user's run store {store}"
