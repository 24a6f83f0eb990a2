"""Start-up hygiene: the app's port is honoured, never silently moved; setup runs pip only when needed."""
import os
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "streamlit").exists(), reason="needs the project's .venv")
@pytest.mark.slow
def test_the_app_refuses_a_taken_port_with_a_message_instead_of_moving():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(["./scripts/app.sh"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                                env={**os.environ, "RT4CHART_PORT": str(port)})
    assert result.returncode == 1
    assert f"port {port} on 127.0.0.1 is taken" in result.stderr and "RT4CHART_PORT=" in result.stderr


@pytest.mark.skipif(not (ROOT / ".venv" / ".rt4chart-setup").exists(), reason="needs a set-up .venv")
def test_a_second_setup_with_nothing_changed_runs_no_pip(tmp_path):
    result = subprocess.run(["bash", "-x", "./scripts/setup.sh"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and "pip install" not in result.stderr

