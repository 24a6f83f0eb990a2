"""Prompt templates shipped as package data; `$name` placeholders are filled by `render`."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from string import Template


@lru_cache(maxsize=None)
def load(name: str) -> str:
    """The text of prompt `name` (file `name.txt` in this package)."""
    return resources.files(__package__).joinpath(f"{name}.txt").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    return Template(load(name)).substitute(**values)


def prompt_hash(name: str) -> str:
    """Short SHA-256 of a template, recorded in manifests so a result can be reproduced."""
    return hashlib.sha256(load(name).encode("utf-8")).hexdigest()[:12]
