"""The pairing of one board in one round, shared by Berger, Dutch and TRF import."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pairing:
    """White against Black on a board; `black` None is a pairing-allocated bye
    (`board` is then 0: a bye takes no board). Players are starting numbers."""

    board: int
    white: int
    black: int | None

    @property
    def is_bye(self) -> bool:
        return self.black is None

    def players(self) -> tuple[int, ...]:
        return (self.white,) if self.black is None else (self.white, self.black)

    def as_pair(self) -> tuple[int, int]:
        """(white, black) with 0 for the bye, the form pairing programs print."""
        return (self.white, self.black or 0)


__all__ = ["Pairing"]
