"""The product's log placement (`boards.recovery`) against the simulator's realistic log.

A real board overwrites the last record when the same square changes again, so the
changes a driver saw live are not always in the log one for one. These cases pin what
that does to placing ourselves in the log after an outage (issue 10, part 2).
"""

from __future__ import annotations

from boards.dgt.eeprom import decode_ring
from boards.position import BoardPosition
from boards.recovery import recover
from boardsim.board import EmulatedBoard
from tests.support.event_log import idx

WHITE_PAWN, WHITE_KNIGHT, WHITE_BISHOP = 0x01, 0x03, 0x04
BLACK_PAWN, BLACK_KNIGHT = 0x07, 0x09


class Hands:
    """Changes made on a board, remembering those a driver saw live (before the outage)."""

    def __init__(self) -> None:
        self.board = EmulatedBoard("10001")
        self.t = 0.0
        self.live: list[tuple[int, int]] = []
        self.listening = True
        self.board.press_lever("right", self.t)  # Black starts White's clock

    def put(self, square: str, code: int, dt: float = 0.5) -> None:
        self.t += dt
        self.board.set_square(idx(square), code, self.t)
        if self.listening:
            self.live.append((idx(square), code))

    def move(self, *steps: tuple[str, int]) -> None:
        for square, code in steps:
            self.put(square, code)

    def press(self, side: str) -> None:
        self.t += 1.0
        self.board.press_lever("left" if side == "left" else "right", self.t)

    def outage(self) -> BoardPosition:
        """The driver stops listening now; returns the last position it saw."""
        self.listening = False
        return self.board.position


def replayed(hands: Hands, known: BoardPosition) -> tuple[BoardPosition, int] | None:
    """Where the product's placement and replay of the download end: position, presses."""
    events = decode_ring(hands.board.eeprom.dump())[0]
    got = recover(events, tuple(hands.live[-48:]), known, hands.t, "10001")
    if got is None:
        return None
    return got.final, sum(len(step.presses) for step in got.steps[got.seen + 1 :])


def opening(hands: Hands) -> None:
    hands.move(("e2", 0), ("e4", WHITE_PAWN))
    hands.press("left")
    hands.move(("e7", 0), ("e5", BLACK_PAWN))
    hands.press("right")
    hands.move(("g1", 0), ("f3", WHITE_KNIGHT))
    hands.press("left")
    hands.move(("b8", 0), ("c6", BLACK_KNIGHT))
    hands.press("right")


def test_a_jadoube_just_before_the_outage_is_placed() -> None:
    """Live: f3 knight lifted and put back (two changes); log: one record."""
    hands = Hands()
    opening(hands)
    hands.move(("f3", 0), ("f3", WHITE_KNIGHT))
    known = hands.outage()
    hands.move(("f1", 0), ("c4", WHITE_BISHOP))
    hands.press("left")
    assert replayed(hands, known) == (hands.board.position, 1)


def test_an_outage_that_begins_mid_slide_is_placed() -> None:
    # The square the driver last saw the bishop on was overwritten in the log ("e2
    # emptied"): placement matches that last change by its square and reads it again.
    hands = Hands()
    opening(hands)
    hands.move(("f1", 0), ("e2", WHITE_BISHOP))  # the bishop slides: seen live on e2...
    known = hands.outage()
    hands.move(("e2", 0), ("d3", WHITE_BISHOP), ("d3", 0), ("c4", WHITE_BISHOP), ("c4", 0))
    hands.move(("b5", WHITE_BISHOP))  # ...and ends on b5 while nobody listens
    hands.press("left")
    hands.move(("a7", 0), ("a6", BLACK_PAWN))
    hands.press("right")
    dump = hands.board.eeprom.dump()
    assert bytes([0x40 | WHITE_BISHOP, idx("e2")]) not in dump  # overwritten by "e2 emptied"
    assert bytes([0x40, idx("e2")]) in dump
    assert replayed(hands, known) == (hands.board.position, 2)
