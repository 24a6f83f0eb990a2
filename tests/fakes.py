"""A recording fake of the `openai` client: scripted replies, every request kept for inspection."""
from __future__ import annotations

import json
import re
from types import SimpleNamespace
from typing import Callable, Optional


def claim_ids(prompt: str) -> list[int]:
    block = prompt.split("<claims>")[1].split("</claims>")[0]
    return [int(m) for m in re.findall(r"^(\d+):", block, flags=re.MULTILINE)]


def answer_of(prompt: str) -> str:
    return prompt.split("<answer>\n")[1].split("\n</answer>")[0]


_NAMES_BY_KEYS = {("claims",): "decomposition", ("results",): "verification", ("revisions", "success"): "reflection",
                  ("items", "success"): "insights_warmup", ("adds_new", "new_items", "supports"): "insights_check",
                  ("items",): "insights_consolidate"}


def schema_name_of(request: dict) -> str:
    """The schema a request asks for, in any response format (json_schema, json_object + schema, or the
    schema only in the system prompt)."""
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt["json_schema"]["name"]
    schema = fmt.get("schema")
    if schema is None:
        system = request["messages"][0]["content"]
        marker = "matches this JSON schema exactly:\n"
        schema = json.loads(system[system.index(marker) + len(marker):])
    return _NAMES_BY_KEYS[tuple(sorted(schema["properties"]))]


def default_reply(schema_name: str, prompt: str) -> str:
    """Sentence-per-claim decomposition; every claim entailed by sentence 0."""
    if schema_name == "reflection":
        return json.dumps({"success": True, "revisions": []})
    if schema_name == "insights_warmup":
        return json.dumps({"success": False, "items": [{"id": "unsupported-claims", "title": "Unsupported claims",
                                                        "description": "Answers state facts the passages lack.",
                                                        "supported_by_row": True, "merged_from": []}]})
    if schema_name == "insights_check":
        return json.dumps({"adds_new": False, "supports": ["unsupported-claims"], "new_items": []})
    if schema_name == "insights_consolidate":
        return json.dumps({"items": []})
    if schema_name == "decomposition":
        sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", answer_of(prompt)) if s.strip()]
        return json.dumps({"claims": [{"text": s, "answer_substrings": [s]} for s in sentences]})
    return json.dumps({"results": [{"claim_id": i, "verdict": "entailed", "evidence_sentence_ids": [0],
                                    "unsupported_text": [], "reason": "stated"} for i in claim_ids(prompt)]})


class FakeOpenAI:
    """Stands in for `openai.OpenAI`: `.chat.completions.create(**kwargs)` answers from a script.

    `script(schema_name, prompt, call_number)` returns the reply text, or raises to simulate a fault.
    """

    def __init__(self, script: Optional[Callable[[str, str, int], str]] = None):
        self.requests: list[dict] = []
        self._script = script or (lambda name, prompt, n: default_reply(name, prompt))
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs):
        self.requests.append(kwargs)
        name = schema_name_of(kwargs)
        prompt = next(m["content"] for m in kwargs["messages"] if m["role"] == "user")
        text = self._script(name, prompt, len(self.requests))
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=text))],
                               usage=SimpleNamespace(prompt_tokens=len(prompt) // 4, completion_tokens=len(text) // 4))

    def names(self) -> list[str]:
        return [schema_name_of(r) for r in self.requests]


def wait_for_journal_rows(journal, rows: int, still_running, timeout_s: float = 120.0) -> bool:
    """Poll a batch journal until it holds `rows` finished rows (True), or the run ends or time is up."""
    import sqlite3
    import time

    deadline = time.time() + timeout_s
    while time.time() < deadline and still_running():
        time.sleep(0.2)
        if not journal.exists():
            continue
        try:
            with sqlite3.connect(journal, timeout=5) as conn:
                if conn.execute("SELECT COUNT(*) FROM journal_rows").fetchone()[0] >= rows:
                    return True
        except sqlite3.OperationalError:
            continue
    return False


def flagged_predictions(path, rows: int):
    """A predictions file `rt4chart insights` reads: `rows` answers, each flagged by one baseless claim."""
    path.write_text("".join(json.dumps({
        "id": f"r{i}", "answer": f"The dam is {40 + i} metres high.", "status": "hallucinated",
        "claims": [{"text": f"The dam is {40 + i} metres high.", "verdict": "baseless", "evidence": []}]}) + "\n"
        for i in range(rows)))
    return path
