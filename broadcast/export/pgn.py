"""PGN for broadcasts: one game, one round (all its games), the whole event.

Pure functions: a `GameBook` (live or delayed, the exporter does not care), the
`EventConfig` and optionally the `TournamentState` in, PGN text out. No I/O.

Every game gets the Seven Tag Roster first (Event, Site, Date, Round, White, Black,
Result), then Board (and Table, the hall's table, in an event whose tables are not its
boards: several sections), GameId, SetUp/FEN for a non-standard start, ratings, FIDE ids,
titles, federations, the teams in a team section (WhiteTeam, BlackTeam: the names of the
rosters the players are on, which Lichess's team table reads), TimeControl, UTCDate/UTCTime,
the clock's last reading (WhiteClock, BlackClock, ReferenceTime: `pgn_clock`) and
Termination. Each move carries
``{[%clk h:mm:ss] [%emt h:mm:ss]}`` when the times are known, and ``[%eval 0.35]`` /
``[%eval #3]`` (the engine's score of the position after the move, from White's side)
when the caller hands `game_pgn` the evaluations (the feeds' ``?eval=1``).

Results (see docs/exports.md for the reasons):

========== ============ ============================ =========================
game       Result tag   Termination                  movetext ends with
========== ============ ============================ =========================
1-0 etc.   as is        normal / time forfeit / ...  the result
+/-        1-0          Unplayed (fewer than 2 plies) 1-0
-/+        0-1          Unplayed (fewer than 2 plies) 0-1
-/-        0-0          Unplayed                     ``*``
ongoing    ``*``        (none)                       ``*``
========== ============ ============================ =========================

``0-0`` is the Lichess notation for a double forfeit; it is written only in the tag,
because in movetext ``0-0`` reads as castling (python-chess and Lichess's parser both
take it that way), so the movetext ends with ``*``. A forfeit without moves, and a game
an e-board followed that ended after fewer than two plies, are tagged ``[Termination
"Unplayed"]``, which is how Lichess marks (and leaves out of rating changes) games that
FIDE does not rate. A result entered for a table without an e-board is a played game:
its moves are on the scoresheet, not here.
Byes are not games and are not written.

Moves are written from the SAN already stored in the game (the fold computed it with
python-chess), so exporting never replays the positions: a 100-board round is cheap
enough to rebuild on every change.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import chess

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.config.tables import table_of, tables_are_boards
from broadcast.export.pgn_clock import clock_tags
from broadcast.export.pgn_teams import team_tags
from broadcast.fide.results import Reason, Result
from broadcast.games.book import GameBook
from broadcast.games.evaluation import EvalLookup, pgn_eval
from broadcast.games.game_state import GameState, MoveRecord, PlayerRef
from broadcast.tournament.playoff import time_control_for
from broadcast.tournament.tournament_state import TournamentState
from clocks.timecontrol import TimeControl, pgn_time_control

__all__ = [
    "UNPLAYED",
    "GameOutcome",
    "event_games",
    "event_pgn",
    "event_title",
    "game_exists",
    "game_headers",
    "game_outcome",
    "game_pgn",
    "round_game_texts",
    "round_pgn",
    "section_pgn",
]

UNPLAYED = "Unplayed"

_LINE_WIDTH = 80


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """What the PGN says about how a game ended: `result` None while it is ongoing."""

    result: Result | None
    reason: Reason | None = None

    def result_tag(self) -> str:
        return "*" if self.result is None else self.result.pgn_tag

    def termination(self, game: GameState) -> str | None:
        """The Termination tag value, or None for a game still being played."""
        if self.result is None:
            return None
        if self.result.is_forfeit:
            # A forfeit after moves were made: the arbiter's decision (e.g. a player left).
            return UNPLAYED if game.ply < 2 else "rules infraction"
        if game.under_one_move:
            # FIDE: a game is played once both sides have moved; Lichess tags the others
            # so. Only an e-board tells: a table without one keeps its moves on paper.
            return UNPLAYED
        return self.reason.termination if self.reason else "normal"


def game_outcome(game: GameState, tournament: TournamentState | None = None) -> GameOutcome:
    """The game's own result; else, when `tournament` is given, the result recorded there
    for this pairing (forfeits and double forfeits are often entered only as results).

    Public feeds built from a delayed book must not pass a live tournament state: its
    results would show a result before the delayed moves reach it.
    """
    if game.result is not None:
        reason = game.result_reason
        return GameOutcome(Result(game.result), Reason(reason) if reason else None)
    if tournament is None:
        return GameOutcome(None)
    section = tournament.sections.get(game.key.section)
    rnd = section.rounds.get(game.key.round) if section else None
    if rnd is None:
        return GameOutcome(None)
    pairing = next(
        (p for p in rnd.pairings if p.board == game.key.board and p.black is not None), None
    )
    if pairing is None or (game.white is not None and game.white.start != pairing.white):
        return GameOutcome(None)  # the pairing changed under the game: trust neither
    recorded = rnd.results.get(pairing.white)
    if recorded is None:
        return GameOutcome(None)
    try:
        result = Result.from_tournament(recorded.result)
    except ValueError:
        return GameOutcome(None)  # a bye's code: not a game's result
    return GameOutcome(result, Reason.ARBITER)


def _escape(value: str) -> str:
    # PGN tag values: backslash and quote escaped, no line breaks or control characters.
    clean = "".join(ch if ch.isprintable() else " " for ch in value)
    return clean.replace("\\", "\\\\").replace('"', '\\"')


def _pgn_date(date: dt.date) -> str:
    return f"{date.year:04d}.{date.month:02d}.{date.day:02d}"


def _round_start(section: SectionConfig, round_number: int) -> dt.datetime | None:
    try:
        return section.round_start(round_number).start
    except KeyError:
        return None


def _player_tags(colour: str, player: PlayerRef | None) -> list[tuple[str, str]]:
    if player is None:
        return []
    tags: list[tuple[str, str]] = []
    if player.title:
        tags.append((f"{colour}Title", player.title))
    if player.rating:
        tags.append((f"{colour}Elo", str(player.rating)))
    if player.fide_id:
        tags.append((f"{colour}FideId", player.fide_id))
    if player.federation:
        tags.append((f"{colour}Federation", player.federation))
    return tags


def event_title(event: EventConfig, section: str) -> str:
    """The Event tag: the event name, with the section when the event has several (their
    board numbers all start at 1, and Lichess matches games by Event + Round + Board)."""
    return event.name if len(event.sections) <= 1 else f"{event.name} - {section}"


def _table_tag(event: EventConfig, game: GameState) -> list[tuple[str, str]]:
    """`Board` stays the pairing board (Lichess matches games by Event, Round and Board,
    and every section's boards start at 1); `Table` is the hall's table, the number on
    the scoresheet and the desk. Left out where tables are boards (one section)."""
    if tables_are_boards(event):
        return []
    return [("Table", str(table_of(event, game.key.section, game.key.board)))]


def game_headers(
    game: GameState,
    event: EventConfig,
    outcome: GameOutcome | None = None,
    *,
    time_control: TimeControl | None = None,
    start: dt.datetime | None = None,
) -> list[tuple[str, str]]:
    """The tag pairs of `game`, in the order they are written (Seven Tag Roster first).
    `time_control`, `start`: the game's own when they are not its round's (a play-off
    game has no scheduled round: it starts when the arbiter pairs it)."""
    section = event.section(game.key.section)
    outcome = outcome if outcome is not None else game_outcome(game)
    start = start or _round_start(section, game.key.round)
    tags: list[tuple[str, str]] = [
        ("Event", event_title(event, section.name)),
        ("Site", event.site or "?"),
        ("Date", _pgn_date(start.date()) if start else "????.??.??"),
        ("Round", f"{game.key.round}.{game.key.board}"),
        ("White", game.white.name if game.white else "?"),
        ("Black", game.black.name if game.black else "?"),
        ("Result", outcome.result_tag()),
        ("Board", str(game.key.board)),
        *_table_tag(event, game),
        ("GameId", game.key.id),
    ]
    if game.start_fen != chess.STARTING_FEN:
        tags += [("SetUp", "1"), ("FEN", game.start_fen)]
    tags += _player_tags("White", game.white)
    tags += _player_tags("Black", game.black)
    tags += team_tags(section, game)
    tags.append(("TimeControl", pgn_time_control(time_control or section.time_control)))
    if start is not None:
        # Clocks start at the scheduled time (Laws 6.7), so that is when the game began.
        utc = start.astimezone(dt.UTC)
        tags += [("UTCDate", _pgn_date(utc.date())), ("UTCTime", utc.strftime("%H:%M:%S"))]
    tags += clock_tags(game)  # WhiteClock, BlackClock, ReferenceTime (pgn_clock)
    termination = outcome.termination(game)
    if termination is not None:
        tags.append(("Termination", termination))
    return tags


def _clock(seconds: float) -> str:
    whole = max(0, round(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _board_notes(game: GameState) -> dict[int, list[str]]:
    """By ply: where the game moved to another hall board after that ply (a spare took
    over), as the PGN says it: "board 1 replaced by board 4"."""
    notes: dict[int, list[str]] = {}
    for change in game.board_changes:
        ply = min(change.ply, len(game.moves))  # a later correction may have shortened it
        notes.setdefault(ply, []).append(
            f"board {change.old_board} replaced by board {change.new_board}"
        )
    return notes


def _comment(
    move: MoveRecord,
    previous: MoveRecord | None,
    evals: EvalLookup | None,
    notes: Sequence[str] = (),
) -> str:
    parts: list[str] = []
    if evals is not None and (ev := evals(move.fen_after)) is not None:
        parts.append(pgn_eval(ev))
    if move.remaining is not None:
        parts.append(f"[%clk {_clock(move.remaining)}]")
    spent = move.spent
    if spent is None and previous is not None and move.t > 0 and previous.t > 0:
        # No think time from the clock: the wall-clock gap since the previous move is it.
        spent = max(0.0, move.t - previous.t)
    if spent is not None:
        parts.append(f"[%emt {_clock(spent)}]")
    parts += notes
    return "{" + " ".join(parts) + "}" if parts else ""


def _movetext_tokens(game: GameState, evals: EvalLookup | None = None) -> list[str]:
    fields = game.start_fen.split()
    white_to_move = fields[1] == "w" if len(fields) > 1 else True
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    tokens: list[str] = []
    need_number = True  # black's move shows "n..." at the start and after a comment
    previous: MoveRecord | None = None
    notes = _board_notes(game)
    if 0 in notes:
        tokens.append("{" + " ".join(notes[0]) + "}")
    for ply, move in enumerate(game.moves, 1):
        if white_to_move:
            tokens.append(f"{number}.")
        elif need_number:
            tokens.append(f"{number}...")
        tokens.append(move.san)
        comment = _comment(move, previous, evals, notes.get(ply, ()))
        if comment:
            tokens.append(comment)
        need_number = bool(comment)
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
        previous = move
    return tokens


def _wrap(tokens: Iterable[str]) -> str:
    lines: list[str] = []
    line = ""
    for token in tokens:
        if not line:
            line = token
        elif len(line) + 1 + len(token) <= _LINE_WIDTH:
            line = f"{line} {token}"
        else:
            lines.append(line)
            line = token
    if line:
        lines.append(line)
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class _Playoff:
    """What a play-off game's PGN says differently from its section's rounds."""

    time_control: TimeControl
    start: dt.datetime
    comment: str


def _playoff(
    section: SectionConfig, pairings: TournamentState | None, round_number: int
) -> _Playoff | None:
    """A play-off game's own time control, start, and the comment that opens its movetext
    (the Armageddon odds: PGN's TimeControl holds one side only, and has no draw odds)."""
    if pairings is None or section.playoff is None or round_number <= section.rounds:
        return None
    state = pairings.sections.get(section.name)
    game = state.playoff.get(round_number - section.rounds) if state else None
    if state is None or game is None:
        return None
    time_control = time_control_for(section, state, round_number)
    if game.kind != "armageddon":
        comment = f"Play-off for first place, game {game.number} (blitz)"
        return _Playoff(time_control, game.at, comment)
    white = time_control.initial_seconds("white")
    black = time_control.initial_seconds("black")
    winner = section.playoff.armageddon_draw_winner.capitalize()
    comment = (
        f"Play-off for first place, game {game.number}: Armageddon, White {white} s, "
        f"Black {black} s ({time_control}); a draw counts as a win for {winner}"
    )
    return _Playoff(time_control, game.at, comment)


def _forfeit_note(outcome: GameOutcome) -> list[str]:
    """A forfeit says so in the movetext: PGN has no forfeit result, and `Unplayed` alone
    reads like any game that stopped before both sides moved."""
    if outcome.result is None or not outcome.result.is_forfeit:
        return []
    why = (outcome.reason or Reason.ARBITER).words
    detail = f" ({why})" if why and outcome.reason != Reason.ARBITER else ""
    if outcome.result.winner is None:
        return [f"Double forfeit{detail}"]
    winner = outcome.result.winner.capitalize()
    return [f"{winner} wins by forfeit{detail}"]


def game_pgn(
    game: GameState,
    event: EventConfig,
    *,
    tournament: TournamentState | None = None,
    pairings: TournamentState | None = None,
    evals: EvalLookup | None = None,
) -> str:
    """One game as PGN text ending in a newline. `pairings` (default: `tournament`) is
    read for a play-off game's time control only, never for results, so a public feed
    may pass its delayed tournament state. `evals`: each position's evaluation where
    known, written as `[%eval ...]` after its move."""
    outcome = game_outcome(game, tournament)
    section = event.section(game.key.section)
    playoff = _playoff(section, pairings if pairings is not None else tournament, game.key.round)
    tags = game_headers(
        game,
        event,
        outcome,
        time_control=playoff.time_control if playoff else None,
        # The local date of the hall (the Date tag), as for the scheduled rounds.
        start=playoff.start.astimezone(event.zone) if playoff else None,
    )
    headers = "".join(f'[{name} "{_escape(value)}"]\n' for name, value in tags)
    notes = [playoff.comment] if playoff else []
    notes += _forfeit_note(outcome)
    tokens = [f"{{{note}}}" for note in notes]
    tokens += _movetext_tokens(game, evals)
    # "0-0" would read back as castling: the double forfeit lives in the tag only.
    tokens.append("*" if outcome.result is None else outcome.result.pgn_movetext)
    return f"{headers}\n{_wrap(tokens)}\n"


def _join(games: Iterable[str]) -> str:
    # Games separated by one blank line: the form multi-game files and the push API use.
    return "\n".join(games)


def _book(book: GameBook, tournament: TournamentState | None) -> GameBook:
    # With the tournament at hand, every paired game is written, even one nothing has
    # happened on yet (a forfeit entered only as a result, a board not yet wired).
    return book.synced(tournament) if tournament is not None else book


def round_game_texts(
    book: GameBook,
    event: EventConfig,
    section: str,
    round_number: int,
    *,
    tournament: TournamentState | None = None,
    pairings: TournamentState | None = None,
) -> dict[str, str]:
    """{game id: PGN text} for every game of a round, by board: what the relay pushes
    and the folder export writes one file each for. `pairings`: see `game_pgn`."""
    event.section(section)
    games = _book(book, tournament).round_games(section, round_number)
    return {g.id: game_pgn(g, event, tournament=tournament, pairings=pairings) for g in games}


def _round_text(
    book: GameBook,
    event: EventConfig,
    section: str,
    round_number: int,
    tournament: TournamentState | None,
    pairings: TournamentState | None,
) -> str:
    games = book.round_games(section, round_number)
    return _join(game_pgn(g, event, tournament=tournament, pairings=pairings) for g in games)


def _section_text(
    book: GameBook,
    event: EventConfig,
    section: str,
    tournament: TournamentState | None,
    pairings: TournamentState | None,
) -> str:
    rounds = sorted({g.key.round for g in book.games.values() if g.key.section == section})
    return _join(_round_text(book, event, section, r, tournament, pairings) for r in rounds)


def round_pgn(
    book: GameBook,
    event: EventConfig,
    section: str,
    round_number: int,
    *,
    tournament: TournamentState | None = None,
    pairings: TournamentState | None = None,
) -> str:
    """All games of one round of one section, by board: the relay polling format.
    Empty text for a round without games. `pairings`: see `game_pgn`."""
    event.section(section)  # a KeyError naming the sections, not an empty file
    full = _book(book, tournament)
    return _round_text(full, event, section, round_number, tournament, pairings)


def section_pgn(
    book: GameBook,
    event: EventConfig,
    section: str,
    *,
    tournament: TournamentState | None = None,
    pairings: TournamentState | None = None,
) -> str:
    """Every game of one section, round by round, board by board."""
    event.section(section)
    return _section_text(_book(book, tournament), event, section, tournament, pairings)


def game_exists(game: GameState, live_round: int | None = None) -> bool:
    """Whether `game` belongs in the event's PGN: it has a move or a result, or its round
    is being played (`live_round`, or an earlier one). A future round's game, paired ahead
    (round-robin) but not begun, is not a game yet: a relay would show it as an empty
    board with "*"."""
    if game.moves or game.result is not None:
        return True
    if game.proposal is not None or game.first_activity is not None:
        return True
    return live_round is not None and game.key.round <= live_round


def event_games(
    book: GameBook,
    event: EventConfig,
    *,
    tournament: TournamentState | None = None,
    live: Mapping[str, int | None] | None = None,
) -> list[GameState]:
    """The games of `event_pgn`, in its order: sections in config order, then rounds, then
    boards (a server that keeps each game's text joins those in this order); only games
    that exist (`game_exists`, with each section's live round from `live`)."""
    full = _book(book, tournament)
    order = {s.name: i for i, s in enumerate(event.sections)}
    live = live or {}
    games = [
        g
        for g in full.games.values()
        if g.key.section in order and game_exists(g, live.get(g.key.section))
    ]
    games.sort(key=lambda g: (order[g.key.section], g.key.round, g.key.board))
    return games


def event_pgn(
    book: GameBook,
    event: EventConfig,
    *,
    tournament: TournamentState | None = None,
    pairings: TournamentState | None = None,
    live: Mapping[str, int | None] | None = None,
) -> str:
    """Every game of the event that exists (`event_games`): sections in config order, then
    rounds, then boards."""
    games = event_games(book, event, tournament=tournament, live=live)
    return _join(game_pgn(g, event, tournament=tournament, pairings=pairings) for g in games)
