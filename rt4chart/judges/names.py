"""The names a user picks a judge and a structured-output mode by (light: the CLI's parser reads them)."""
from __future__ import annotations

JUDGES = ("offline", "model", "hybrid", "openai")
RESPONSE_MODES = ("json_schema", "json_object_schema", "json_object", "prompt")  # tried in this order
