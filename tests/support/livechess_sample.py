"""LiveChess's own export folder (a sample LiveChess 2.2 wrote), and a comparison of a JSON
value's shape with the sample's: the same keys, values of the same JSON types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SAMPLE = Path("/work/shared/testdata/livechess-folder")

# Fields LiveChess Cloud serves beside the local export's (the sample has none of them):
# ours may carry these, and no other key the sample lacks.
CLOUD_EXTRAS = frozenset(
    {"location", "country", "website", "rules", "chess960", "timecontrol", "eboards"}
    | {"date", "gender", "fideid"}
)


def sample(relative: str) -> Any:
    return json.loads((SAMPLE / relative).read_text(encoding="utf-8"))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def shape_errors(ours: Any, theirs: Any, where: str = "$") -> list[str]:
    """Where `ours` departs from `theirs`: a missing key, a key neither LiveChess nor its
    Cloud writes, or a value of another JSON type (a null in the sample is an unknown
    value there: ours may be null, a string or a number). Arrays: every element of ours
    against the sample's first."""
    if theirs is None:
        ok = _kind(ours) in ("null", "string", "number")
        return [] if ok else [f"{where}: {_kind(ours)} where the sample has null"]
    if _kind(ours) != _kind(theirs):
        return [f"{where}: {_kind(ours)} where the sample has {_kind(theirs)}"]
    errors: list[str] = []
    if isinstance(theirs, dict):
        errors += [f"{where}: no {key!r}" for key in sorted(theirs.keys() - ours.keys())]
        extra = ours.keys() - theirs.keys() - CLOUD_EXTRAS
        errors += [f"{where}: {key!r} is not LiveChess's" for key in sorted(extra)]
        for key in sorted(theirs.keys() & ours.keys()):
            errors += shape_errors(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(theirs, list) and theirs:
        for i, item in enumerate(ours):
            errors += shape_errors(item, theirs[0], f"{where}[{i}]")
    return errors
