"""Config errors: every problem found, each with its file, line and a hint."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from clocks.errors import BoardwireError

__all__ = ["ConfigError", "ConfigIssue"]


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """One mistake in a config (or in a player list it names)."""

    file: Path
    line: int | None
    message: str
    hint: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else f"{self.file}"
        text = f"{where}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text


class ConfigError(BoardwireError, ValueError):
    """Raised once per load with every issue found; nothing starts from a half-valid config."""

    def __init__(self, issues: list[ConfigIssue] | tuple[ConfigIssue, ...]) -> None:
        self.issues: tuple[ConfigIssue, ...] = tuple(issues)
        count = len(self.issues)
        head = f"{count} problem{'s' if count != 1 else ''} in the event config:"
        super().__init__("\n".join([head, *(f"  {issue}" for issue in self.issues)]))
