"""The price of a batch: per million prompt and completion tokens at the provider's batch rate, from the flags
(`--price-in`, `--price-out`) or from a price table the team keeps (`--prices FILE`, or RT4CHART_PRICES), a
TOML or JSON file of model -> rates:

    [gpt-4o-mini]
    input = 0.075      # per million prompt tokens, batch rate
    output = 0.30      # per million completion tokens, batch rate

rt4chart ships no prices of its own: they change, and a wrong built-in price is worse than none."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from rt4chart.core.cost import Cost
from rt4chart.core.errors import InputError


@dataclass(frozen=True)
class Rate:
    input: float    # per million prompt tokens
    output: float   # per million completion tokens
    source: str     # where it came from, for the line that states the price

    def price(self, cost: Cost) -> float:
        """The cost's tokens at this rate (per million tokens)."""
        return (cost.prompt_tokens * self.input + cost.completion_tokens * self.output) / 1e6


def read_table(path: str) -> dict[str, Rate]:
    """model -> Rate from a TOML or JSON price table; a clear error naming the file and the entry otherwise."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"the price table {path} cannot be read ({exc.strerror or exc})") from None
    try:
        if file.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import tomllib

            data = tomllib.loads(text)
    except (ValueError, json.JSONDecodeError) as exc:
        raise InputError(f"the price table {path} is not valid {'JSON' if file.suffix == '.json' else 'TOML'}: {exc}"
                         ) from None
    if not isinstance(data, dict):
        raise InputError(f"the price table {path} must map model names to {{input, output}} rates")
    table = {}
    for model, entry in data.items():
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), (int, float)) and not isinstance(
                entry.get(k), bool) and entry[k] >= 0 for k in ("input", "output")):
            raise InputError(f"the price table {path}: {model!r} needs input and output, each a price per million "
                             "tokens (a number >= 0)")
        table[str(model)] = Rate(float(entry["input"]), float(entry["output"]), f"{path} [{model}]")
    return table


def rate_for(model: Optional[str], price_in: Optional[float], price_out: Optional[float],
             table_path: Optional[str] = None) -> Optional[Rate]:
    """The flags' rate when either is given; else the table's entry for `model` (the table from `table_path`
    or RT4CHART_PRICES); None without a price."""
    if price_in is not None or price_out is not None:
        return Rate(price_in or 0.0, price_out or 0.0, "the --price-in/--price-out given")
    path = table_path or os.environ.get("RT4CHART_PRICES")
    if not path:
        return None
    table = read_table(path)
    if model not in table:
        raise InputError(f"the price table {path} has no entry for model {model!r} (it has: "
                         f"{', '.join(sorted(table)) or 'none'}); add one, or leave the price out")
    return table[model]
