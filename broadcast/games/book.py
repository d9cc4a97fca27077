"""All games of an event: one `GameState` per paired game, kept in step with the
tournament's pairings, and the mapping from physical boards to games (a hall board
carries the game played at its table: `broadcast.config.tables`).

A game whose pairing an edit takes away (a withdrawn player's game under `remaining_games
= "remove"`, a round re-paired with fewer boards) leaves the game list, so no page, feed
or export shows it; it is kept aside, so a late event for it folds harmlessly and a later
edit that pairs it again brings its moves back. A game begun (moves, a result) whose board
an edit gives to other players is kept aside the same way, and the board starts a new
game: moves are never credited to players who did not make them."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace

from broadcast.config.model import BoardConfig, EventConfig, PlayerEntry
from broadcast.config.tables import board_table, first_tables, hall_board_at, table_of
from broadcast.games.game_events import GameEvent
from broadcast.games.game_state import GameError, GameState, PlayerRef
from broadcast.games.ids import GameKey
from broadcast.tournament.tournament_state import TournamentState


def player_ref(entry: PlayerEntry | None, number: int) -> PlayerRef:
    if entry is None:
        return PlayerRef(number, f"Player {number}")
    return PlayerRef(
        entry.number, entry.name, entry.rating, entry.fide_id, entry.title, entry.federation
    )


def section_boards(event: EventConfig, section: str) -> list[BoardConfig]:
    """The hall boards of a section in table order (`broadcast.config.tables`): each
    carries the game of its table, `pairing_board_of` it."""
    own = (b for b in event.boards if b.section == section)
    return sorted(own, key=lambda b: (board_table(event, b), b.number))


def pairing_board_of(event: EventConfig, board: BoardConfig) -> int:
    """The pairing board (of its section) whose game a hall board carries: the one played
    at its table. Below 1 only in a config the loader refuses."""
    first = first_tables(event).get(board.section, 1)
    return board_table(event, board) - first + 1


def hall_board_for(event: EventConfig, key: GameKey) -> BoardConfig | None:
    """The hall board on the table of a game, or None (the table has no e-board)."""
    board = hall_board_at(event, table_of(event, key.section, key.board))
    return board if board is not None and board.section == key.section else None


def _place(
    games: dict[str, GameState],
    removed: dict[str, GameState],
    key: GameKey,
    white: PlayerRef,
    black: PlayerRef,
) -> None:
    old = games.get(key.id)
    if old is None:
        old = removed.pop(key.id, None)
    if old is None:
        games[key.id] = GameState(key, white, black)
    elif (old.white, old.black) == (white, black):
        games[key.id] = old
    elif (old.moves or old.finished) and _starts(old.white, old.black) != _starts(white, black):
        removed[key.id] = old  # another pair's game: theirs stays theirs
        games[key.id] = GameState(key, white, black)
    else:
        games[key.id] = replace(old, white=white, black=black)


def _starts(white: PlayerRef | None, black: PlayerRef | None) -> tuple[int | None, int | None]:
    return (
        white.start if white is not None else None,
        black.start if black is not None else None,
    )


@dataclass(frozen=True)
class GameBook:
    """Games by id; `removed`: games whose pairing was taken away (not shown anywhere)."""

    games: Mapping[str, GameState] = field(default_factory=dict)
    removed: Mapping[str, GameState] = field(default_factory=dict)

    def get(self, game_id: str) -> GameState:
        try:
            return self.games[game_id]
        except KeyError:
            raise GameError(f"no game {game_id!r}") from None

    def round_games(self, section: str, round_number: int) -> list[GameState]:
        return sorted(
            (
                g
                for g in self.games.values()
                if g.key.section == section and g.key.round == round_number
            ),
            key=lambda g: g.key.board,
        )

    def synced(
        self, tournament: TournamentState, rounds: Collection[tuple[str, int]] | None = None
    ) -> GameBook:
        """Games for every pairing of every paired round (and play-off game). A game whose
        pairing changed (an arbiter edit) gets its new players; its moves stay with the
        board. A game of a paired round that no pairing names any more is removed.
        `rounds`: only those (section, round) changed (the others are as they were)."""
        games = dict(self.games)
        removed = dict(self.removed)
        paired: dict[tuple[str, int], set[str]] = {}
        for section in tournament.sections.values():
            for number, round_state in section.rounds.items():
                if rounds is not None and (section.name, number) not in rounds:
                    continue
                wanted = paired.setdefault((section.name, number), set())
                for pairing in round_state.pairings:
                    if pairing.black is None:
                        continue
                    key = GameKey(section.name, number, pairing.board)
                    wanted.add(key.id)
                    white = player_ref(section.players.get(pairing.white), pairing.white)
                    black = player_ref(section.players.get(pairing.black), pairing.black)
                    _place(games, removed, key, white, black)
            for game in section.playoff.values():  # play-off games run on the boards too
                key = GameKey(section.name, section.playoff_round(game.number), game.board)
                if rounds is not None and (section.name, key.round) not in rounds:
                    continue
                paired.setdefault((section.name, key.round), set()).add(key.id)
                white = player_ref(section.players.get(game.white), game.white)
                black = player_ref(section.players.get(game.black), game.black)
                _place(games, removed, key, white, black)
        for game_id, kept in list(games.items()):
            named = paired.get((kept.key.section, kept.key.round))
            if named is not None and game_id not in named:
                removed[game_id] = games.pop(game_id)
        return GameBook(games, removed)

    def apply(self, event: GameEvent) -> GameBook:
        game = self.games.get(event.game)
        if game is None:
            gone = self.removed.get(event.game)
            if gone is not None:  # e.g. a board still reporting on it: kept aside, not shown
                return GameBook(self.games, {**self.removed, event.game: gone.apply(event)})
            game = self.get(event.game)
        return GameBook({**self.games, event.game: game.apply(event)}, self.removed)

    def apply_all(self, events: Iterable[GameEvent]) -> GameBook:
        book = self
        for event in events:
            book = book.apply(event)
        return book


__all__ = ["GameBook", "hall_board_for", "pairing_board_of", "player_ref", "section_boards"]
