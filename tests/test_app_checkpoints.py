"""Served to the network, the app opens only the shipped verifier and the folders its operator lists; on
loopback the Checkpoint field takes any folder, as --model does."""
from __future__ import annotations

import os

import pytest

from app_pages import checkpoints
from rt4chart.core.errors import JudgeConfigError


@pytest.mark.parametrize("address, network", [("127.0.0.1", False), ("localhost", False), ("::1", False),
                                               ("127.0.0.2", False), ("0.0.0.0", True), ("192.168.1.20", True),
                                               ("demo.example", True)])
def test_which_addresses_serve_the_network(address, network):
    assert checkpoints.served_to_network(address) is network


def test_on_loopback_any_folder_may_be_opened():
    assert checkpoints.allowed("/srv/models/mine", "127.0.0.1") == "/srv/models/mine"
    assert checkpoints.allowed("", "127.0.0.1") is None


def test_served_to_the_network_only_listed_folders_and_the_shipped_verifier_may_be_opened(monkeypatch):
    monkeypatch.setenv("RT4CHART_MODELS", os.pathsep.join(["/srv/models/a", "/srv/models/b"]))
    assert checkpoints.allowed(None, "0.0.0.0") is None  # the shipped verifier
    assert checkpoints.allowed("/srv/models/b", "0.0.0.0") == "/srv/models/b"
    with pytest.raises(JudgeConfigError) as refused:
        checkpoints.allowed("/etc", "0.0.0.0")
    assert "RT4CHART_MODELS" in str(refused.value) and "/etc" not in str(refused.value)  # no path is echoed


def test_the_app_served_to_the_network_offers_a_choice_not_a_free_text_field(monkeypatch):
    from tests.test_app import app

    monkeypatch.setenv("RT4CHART_ADDRESS", "0.0.0.0")
    monkeypatch.setenv("RT4CHART_MODELS", "/srv/models/a")
    at = app()
    at.sidebar.radio(key="w.judge").set_value("hybrid").run()
    assert not [t for t in at.sidebar.text_input if t.label == "Checkpoint"]
    box = next(b for b in at.sidebar.selectbox if b.label == "Checkpoint")
    assert box.options == ["the verifier shipped with rt4chart", "/srv/models/a"]


def test_the_app_on_loopback_keeps_the_free_text_checkpoint_field(monkeypatch):
    from tests.test_app import app

    monkeypatch.setenv("RT4CHART_ADDRESS", "127.0.0.1")
    at = app()
    at.sidebar.radio(key="w.judge").set_value("hybrid").run()
    assert [t for t in at.sidebar.text_input if t.label == "Checkpoint"]
