"""Compare's "settings that differ" are the settings a user chose, not every internal key of two judges."""
from __future__ import annotations

from rt4chart.store.analysis import settings_diff


def manifest(judge: str, window: int, **judge_settings) -> dict:
    return {"rt4chart_version": "0.1.0", "judge": judge, "model": None,
            "settings": {"audit": {"window_size": window}, "judge": judge_settings, "threshold": 0.5,
                         "segmenter": "punkt"}, "prompt_hashes": {"x": judge}, "endpoint": {}}


def test_two_judges_differ_in_the_judge_and_the_audit_settings_only():
    a = manifest("offline", 8, score_slope=4.0, idf=True)
    b = manifest("hybrid", 6, entail_threshold=0.3, fuse_clip=3.0)
    assert {d["key"] for d in settings_diff(a, b)} == {"judge", "settings.audit.window_size"}


def test_one_judges_own_settings_show_when_both_runs_use_it():
    a = manifest("model", 8, entail_threshold=0.3)
    b = manifest("model", 8, entail_threshold=0.45)
    assert settings_diff(a, b) == [{"key": "settings.judge.entail_threshold", "a": 0.3, "b": 0.45}]
