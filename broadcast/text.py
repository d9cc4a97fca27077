"""Text from files users hand us, made safe to show: names reach terminals, logs and
pages, so control characters (terminal escapes, bidi overrides) never pass through."""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean_text(value: str) -> str:
    """A string from a file without control characters (terminal escapes, bidi
    overrides): they are replaced by a space and the result stripped."""
    return _CONTROL.sub(" ", value).strip()


__all__ = ["clean_text"]
