"""Prompt templates shipped as package data; `$name` placeholders are filled by `render`."""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from string import Template


@lru_cache(maxsize=None)
def load(name: str) -> str:
    """The text of prompt `name` (file `name.txt` in this package)."""
    return resources.files(__package__).joinpath(f"{name}.txt").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    return Template(load(name)).substitute(**values)


@lru_cache(maxsize=None)
def fewshot(name: str) -> str:
    """Worked examples (package data `name.json`) rendered as text for a prompt."""
    examples = json.loads(resources.files(__package__).joinpath(f"{name}.json").read_text(encoding="utf-8"))
    blocks = []
    for n, ex in enumerate(examples, 1):
        blocks.append(f"Example {n}\nContext:\n" + "\n".join(ex["context"]) + "\nClaims:\n" + "\n".join(ex["claims"])
                      + "\nReply:\n" + json.dumps({"results": ex["results"]}, ensure_ascii=False))
    return "\n\n".join(blocks)


def prompt_hash(name: str) -> str:
    """Short SHA-256 of a template (and of its worked examples, if any), recorded in manifests."""
    text = load(name)
    if name == "verify_global":
        text += fewshot("fewshot_verify")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


_FENCES = ("context", "answer", "question", "claims", "local_hints")


def fence_safe(text: str) -> str:
    """Neutralise our own fence tags inside user data so data cannot close its fence."""
    for tag in _FENCES:
        for variant in (f"<{tag}>", f"</{tag}>", f"<{tag.upper()}>", f"</{tag.upper()}>"):
            text = text.replace(variant, variant.replace("<", "\u2039").replace(">", "\u203a"))
    return text
