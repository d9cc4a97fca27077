"""Every error boardwire raises on purpose has one base, `BoardwireError`."""

from __future__ import annotations

import importlib
import inspect

from clocks.errors import BoardwireError
from tests.test_layers import MODULES


def test_every_error_of_ours_is_a_boardwire_error() -> None:
    found, wrong = [], []
    for name in sorted(MODULES):
        if name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
                and not attr.startswith("_")
            ):
                found.append(f"{name}.{attr}")
                if not issubclass(value, BoardwireError):
                    wrong.append(f"{name}.{attr}")
    assert len(found) > 15  # the test sees the errors it checks
    assert not wrong, f"errors not derived from BoardwireError: {wrong}"
