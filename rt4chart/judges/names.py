"""The structured-output modes a user picks by name (light: the CLI's parser reads them). The judges' names are
the registry's (`rt4chart.judges.registry.judge_names`)."""
from __future__ import annotations

RESPONSE_MODES = ("json_schema", "json_object_schema", "json_object", "prompt")  # tried in this order
