"""The arbiter's actions as the desk and the API call them, and the open alerts.

A thin layer over the service (which journals every action with who did it): it adds
what a person at a desk needs, such as moves typed as on a scoresheet (SAN or UCI, with
move numbers) and sections named by slug. `pair_round` is the one way both the desk's
form and the API pair a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aiohttp import web

from broadcast.arbiter.alerts import Alert
from broadcast.fide.pairing import Pairing
from broadcast.games.events import BoardReplaced
from broadcast.games.ids import GameKey
from broadcast.games.state import GameState
from broadcast.service import actions as regs
from broadcast.service import entries
from broadcast.service.event_service import ActionError, EventService
from broadcast.service.hall import HallBoard
from broadcast.service.health import Health
from broadcast.tournament.events import (
    BoardAssigned,
    ByeCancelled,
    ByeGranted,
    ContinuationRequested,
    PlayerEntered,
    PlayerReplaced,
    PlayerWithdrawn,
    PlayoffGamePaired,
    PrizeRestored,
    PrizeWithheld,
)
from web.arbiter.moves import to_ucis
from web.pairing_worker import PairingWorker
from web.sections import section_by_name

__all__ = [
    "DESK",
    "MAX_BOARD",
    "ByHand",
    "Desk",
    "Dutch",
    "FromTrf",
    "PairingSource",
    "pair_round",
]


MAX_BOARD = 9999  # an event without a [[board]] list: any plausible board number


class Desk:
    """Arbiter actions on one service; each raises ActionError with a message to show."""

    def __init__(self, service: EventService, health: Health | None = None) -> None:
        self.service = service
        self.health = health if health is not None else service.health

    def alerts(self) -> list[Alert]:
        """The system's own alerts (journal, export) first, then the rules' alerts."""
        system = self.health.alerts(self.service.journal, self.service.time.now())
        return system + self.service.alerts()

    def acknowledge(self, alert_id: str, by: str) -> None:
        if self.health.acknowledge(alert_id):
            return  # a system alert is not a journal event (the disk may be full)
        self.service.acknowledge(alert_id, by)

    def _game(self, game_id: str) -> GameState:
        game = self.service.book.games.get(game_id)
        if game is None:
            raise ActionError(f"no game {game_id!r}")
        return game

    def mark_present(self, game_id: str, colour: str, by: str) -> None:
        self.service.mark_present(game_id, colour, by)

    def set_result(
        self, game_id: str, result: str, by: str, reason: str | None = None
    ) -> list[Alert]:
        """A result with its reason (default: forfeit for +/-, agreement for a draw);
        returns the alerts it raised (an early draw)."""
        return regs.set_result(self.service, game_id, result, by, reason)

    def confirm(self, game_id: str, by: str) -> None:
        self.service.confirm_proposal(game_id, by)

    def reject(self, game_id: str, by: str) -> None:
        """The proposed result does not stand: the game goes on."""
        self.service.reject_proposal(game_id, by)

    def correct_line(self, game_id: str, moves: Sequence[str], by: str) -> None:
        self.service.correct_line(game_id, to_ucis(self._game(game_id).start_fen, moves), by)

    def set_start_fen(self, game_id: str, fen: str, by: str) -> None:
        self.service.set_start_fen(game_id, fen.strip(), by)

    def grant_bye(self, section: str, round_number: int, player: int, by: str) -> ByeGranted:
        """The older API's bye: a request through the section's policy (refused:
        ActionError with the regulation's reason); `request_bye(..., override=True)`
        is the arbiter's override."""
        return self.request_bye(section, round_number, player, by)

    def request_bye(
        self, section: str, round_number: int, player: int, by: str, *, override: bool = False
    ) -> ByeGranted:
        return regs.request_bye(
            self.service, self._section(section), round_number, player, by, override=override
        )

    def cancel_bye(
        self, section: str, round_number: int, player: int, by: str, *, override: bool = False
    ) -> ByeCancelled:
        return regs.cancel_bye(
            self.service, self._section(section), round_number, player, by, override=override
        )

    def withdraw(
        self,
        section: str,
        player: int,
        by: str,
        *,
        from_round: int | None = None,
        reason: str = "",
    ) -> PlayerWithdrawn:
        return regs.withdraw(
            self.service, self._section(section), player, by, from_round=from_round, reason=reason
        )

    def continue_after_absence(
        self, section: str, round_number: int, player: int, by: str
    ) -> ContinuationRequested:
        return regs.continue_after_absence(
            self.service, self._section(section), round_number, player, by
        )

    def withhold_prize(self, section: str, player: int, by: str, reason: str) -> PrizeWithheld:
        return regs.withhold_prize(self.service, self._section(section), player, by, reason)

    def restore_prize(self, section: str, player: int, by: str, reason: str = "") -> PrizeRestored:
        return regs.restore_prize(self.service, self._section(section), player, by, reason)

    def enter_late(
        self,
        section: str,
        fields: Mapping[str, object],
        by: str,
        *,
        config_player: int | None = None,
        from_round: int | None = None,
        missed_points: float | None = None,
    ) -> PlayerEntered:
        """A late entry: with the particulars in `fields`, or the config's player
        `config_player` (a player added to the config after the start)."""
        name = self._section(section)
        if config_player is not None:
            if fields:
                raise ActionError(
                    "give either the newcomer's particulars or their number in the config, not both"
                )
            return entries.enter_from_config(
                self.service,
                name,
                config_player,
                by,
                from_round=from_round,
                missed_points=missed_points,
            )
        return entries.enter_late(
            self.service, name, fields, by, from_round=from_round, missed_points=missed_points
        )

    def replace_player(
        self,
        section: str,
        player: int,
        fields: Mapping[str, object],
        by: str,
        *,
        override: str = "",
        missed_points: float | None = None,
    ) -> PlayerReplaced:
        return entries.replace_player(
            self.service,
            self._section(section),
            player,
            fields,
            by,
            override=override,
            missed_points=missed_points,
        )

    def pair_playoff_game(
        self, section: str, white: int, black: int, by: str, *, board: int = 1
    ) -> PlayoffGamePaired:
        return regs.pair_playoff_game(
            self.service, self._section(section), white, black, by, board=board
        )

    def assign_board(
        self,
        section: str,
        round_number: int,
        white: int,
        board: int,
        by: str,
        *,
        white_seconds: float | None = None,
        black_seconds: float | None = None,
    ) -> list[BoardReplaced]:
        """Play the game whose White is `white` on hall board `board`. A game on a hall
        board now (the live round) moves there itself, moves and all: a spare takes over
        (`replace_board`). Otherwise (a round not being played, an event without a hall)
        the pairing's board number changes: refused once either game has begun, as its
        moves would change players."""
        name = self._section(section)
        hall = [b for b in self.service.hall.values() if b.config.section == name]
        if hall and board not in {b.number for b in hall}:
            numbers = sorted(b.number for b in hall)
            raise ActionError(
                f"board {board} is not a board of {name} in the hall "
                f"(boards {numbers[0]}-{numbers[-1]})"
            )
        if not hall and not 1 <= board <= MAX_BOARD:
            raise ActionError(f"board must be between 1 and {MAX_BOARD}, not {board}")
        game = self._game_of(name, round_number, white)
        if any(b.game == game for b in self.service.hall.values()):
            return self.replace_board(
                game, board, by, white_seconds=white_seconds, black_seconds=black_seconds
            )
        there = GameKey(name, round_number, board).id
        for begun in (self.service.book.games.get(game), self.service.book.games.get(there)):
            if begun is not None and (begun.moves or begun.finished):
                raise ActionError(f"{begun.id} has begun: its table number cannot change any more")
        self.service.tournament_event(BoardAssigned(name, round_number, white, board, by=by))
        return []

    def replace_board(
        self,
        game_id: str,
        board: int | None,
        by: str,
        *,
        serial: str | None = None,
        white_seconds: float | None = None,
        black_seconds: float | None = None,
    ) -> list[BoardReplaced]:
        """The game moves to hall board `board`, or to the hall board where DGT board
        `serial` is connected (a spare plugged into a free port)."""
        if (board is None) == (serial is None):
            raise ActionError("name the spare: a hall board number, or a DGT board's serial")
        if serial is not None:
            found = next((b for b in self.service.hall.values() if b.name == serial.strip()), None)
            if found is None:
                seen = sorted(b.name for b in self.service.hall.values() if b.name)
                raise ActionError(
                    f"no DGT board {serial!r} is connected on a hall port "
                    f"(seen: {', '.join(seen) or 'none'})"
                )
            board = found.number
        assert board is not None
        return self.service.replace_board(
            game_id, board, by, white_seconds=white_seconds, black_seconds=black_seconds
        )

    def spares(self) -> list[HallBoard]:
        """The hall boards a game can move to, free ones (no unfinished game) first."""

        def busy(board: HallBoard) -> bool:
            game = self.service.book.games.get(board.game or "")
            return game is not None and not game.finished

        return sorted(self.service.hall.values(), key=lambda b: (busy(b), b.number))

    def _game_of(self, section: str, round_number: int, white: int) -> str:
        """The id of the game of `round_number` whose White is `white`."""
        for game in self.service.book.round_games(section, round_number):
            if game.white is not None and game.white.start == white:
                return game.id
        raise ActionError(f"{section} round {round_number}: no game with White {white}")

    def _section(self, wanted: str) -> str:
        section = section_by_name(self.service.config, wanted)
        if section is None or not wanted:
            raise ActionError(f"no section {wanted!r}")
        return section.name


# -- pairing a round -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FromTrf:
    """The round as the event's pairing program (Vega, Swiss-Manager) wrote it in a TRF."""

    text: str
    # Accept the byes the file gives as they are, even against the bye policy (journaled
    # as the arbiter's override, flagged).
    override: bool = False
    kind = "import"  # the source the journal records


@dataclass(frozen=True, slots=True)
class ByHand:
    """Pairs set by the arbiter: (white, black) starting numbers, black 0 for the bye."""

    pairs: tuple[tuple[int, int], ...]
    kind = "arbiter"


@dataclass(frozen=True, slots=True)
class Dutch:
    """FIDE Dutch, in the worker process (it can take a minute on a large Swiss)."""

    pairer: PairingWorker
    kind = "dutch"


PairingSource = FromTrf | ByHand | Dutch


async def pair_round(
    service: EventService, section: str, number: int, source: PairingSource, by: str
) -> tuple[Pairing, ...]:
    """Pair round `number` of `section` (a section's name) from `source` and publish it
    (a paired round is edited); ActionError (PairingBusy while that round is being
    paired) with a message to show."""
    pairings: tuple[Pairing, ...]
    if isinstance(source, FromTrf):
        pairings = service.imported_pairings(section, number, source.text)
    elif isinstance(source, ByHand):
        games = [p for p in source.pairs if p[1] != 0]
        pairings = tuple(
            [Pairing(i, w, b) for i, (w, b) in enumerate(games, 1)]
            + [Pairing(0, w, None) for w, b in source.pairs if b == 0]
        )
    else:
        pairings = await source.pairer.dutch(service, section, number)
    override = isinstance(source, FromTrf) and source.override
    service.publish_pairings(section, number, pairings, source.kind, by, override=override)
    return pairings


DESK = web.AppKey("desk", Desk)
