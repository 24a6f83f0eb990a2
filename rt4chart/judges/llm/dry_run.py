"""A chat client that calls nothing: it answers with neutral, schema-valid replies and counts the
calls and prompt tokens the openai judge's plan would spend (`rt4chart bench --dry-run`).

Claims are taken one per answer sentence and judged `entailed`, so the plan is the real one for
that decomposition; prompt tokens are estimated as characters / 4 (no tokenizer is shipped).
"""
from __future__ import annotations

import json
import re

from rt4chart.judges.llm.client import ChatClient, Completion

_CLAIM_LINE = re.compile(r"^(\d+): ", re.MULTILINE)


def _between(text: str, tag: str) -> str:
    start = text.find(f"<{tag}>\n")
    end = text.find(f"\n</{tag}>", start)
    return text[start + len(tag) + 3:end] if start >= 0 and end >= 0 else ""


class DryRunClient(ChatClient):
    """Counts what would be sent; sends nothing."""

    def __init__(self, model: str = "dry-run"):
        self.model = model

    def complete(self, messages: list[dict], schema: dict, schema_name: str, max_tokens=None,
                 use_cache: bool = True) -> Completion:
        prompt = "\n".join(m["content"] for m in messages)
        if schema_name == "decomposition":
            answer = _between(messages[-1]["content"], "answer")
            sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if s.strip()]
            reply = {"claims": [{"text": s, "answer_substrings": [s]} for s in sentences]}
        else:
            ids = [int(i) for i in _CLAIM_LINE.findall(_between(messages[-1]["content"], "claims"))]
            reply = {"results": [{"claim_id": i, "verdict": "entailed", "evidence_sentence_ids": [],
                                  "unsupported_text": [], "reason": "dry run"} for i in ids]}
        text = json.dumps(reply)
        return Completion(text=text, prompt_tokens=len(prompt) // 4, completion_tokens=len(text) // 4)
