"""Errors that carry a message for the user: what is wrong and what to do."""
from __future__ import annotations


class InputError(ValueError):
    """Bad input, with a message that says what is wrong and what to do."""
