"""The moves of a game no e-board followed, from its scoresheet: `EnterScoresheet`.

After the round the arbiter pastes what the scoresheet says into the game, so that the
event's PGN has every game's moves: PGN movetext (as a program or Lichess writes it, with
or without headers, comments, NAGs, variations and clock annotations) or plain SAN ("1.
e4 e5 2. Nf3 ..."; UCI too). Every move must be legal: the first that is not is refused,
named by its move number ("23...Nf9"), and nothing is entered.

- The game's result stays what it is (the arbiter's, or the board's): a result written at
  the end of the text is only compared with it, and a difference is said, not applied.
- No board is needed: this is for the tables without one. A game a board followed (a line
  lost with its board) can be completed the same way.
- Moves the game already has are replaced only with a confirmation, which names the plies
  that go (the door asks); the same moves again are refused as "already".
- A game that ended with fewer than two plies on its e-board was recorded as not played
  (TRF, PGN "Unplayed"); once its scoresheet gives it its moves, its result is recorded
  again as played.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import ClassVar

import chess

from broadcast.actions.door import ActionHost, Plan, game_state
from broadcast.actions.moves import _line_plan, parse_move
from broadcast.actions.words import game_words
from broadcast.fide.results import Result
from broadcast.games.game_events import ResultConfirmed
from broadcast.journal.kinds import JournalEvent
from broadcast.phrases import say
from broadcast.service.committer import ActionError

__all__ = ["MAX_TEXT", "EnterScoresheet", "scoresheet_moves"]

MAX_TEXT = 20_000
"""Characters: a 300-move game with every clock annotation fits several times over."""

# The movetext's result tokens (PGN's, and "½-½" as written by hand) in the game notation;
# a scoresheet records played games only.
_RESULTS = {
    **{r.pgn_movetext: r.value for r in Result if not r.is_forfeit},
    "½-½": Result.DRAW.value,
    "*": "*",
}
# A move number ("12.", "12...", "12…") in front of a move or alone.
_NUMBER = re.compile(r"^\d+\s*(?:\.+|…)")
_GLYPHS = "!?+#"  # annotations a scoresheet or a program adds to a move


def _movetext(text: str) -> str:
    """The text without PGN headers, comments, variations and NAGs (nested variations
    too); an unclosed comment or variation is refused: it would hide moves."""
    out: list[str] = []
    depth = 0
    i = 0
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith(("[", "%"))]
    body = "\n".join(lines)
    while i < len(body):
        c = body[i]
        if c == "{":
            end = body.find("}", i)
            if end < 0:
                raise ActionError(say("the scoresheet has a comment '{' that is never closed"))
            i = end + 1
            out.append(" ")
            continue
        if c == ";":  # a comment to the end of the line
            end = body.find("\n", i)
            i = len(body) if end < 0 else end
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                raise ActionError(say("the scoresheet closes a variation ')' it never opened"))
            depth -= 1
            out.append(" ")
        elif depth == 0:
            out.append(c)
        i += 1
    if depth:
        raise ActionError(say("the scoresheet has a variation '(' that is never closed"))
    return "".join(out)


def _tokens(text: str) -> tuple[list[str], str | None]:
    """The move tokens in order and the result written at the end (None: none)."""
    moves: list[str] = []
    result: str | None = None
    for raw in _movetext(text).replace("\u2013", "-").replace("\u2014", "-").split():
        token = raw
        while token and (number := _NUMBER.match(token)):
            token = token[number.end() :]  # "12.e4" and "12...Nf6" as written by hand
        token = token.strip()
        if not token or token.startswith("$") or token.isdigit():
            continue
        if token in _RESULTS:
            result = _RESULTS[token]
            continue
        if result is not None:
            raise ActionError(
                say(
                    "the scoresheet goes on after its result %(result)s: %(token)s",
                    result=result,
                    token=repr(token),
                )
            )
        bare = token.rstrip(_GLYPHS) or token
        if bare in ("e.p.", "ep"):
            continue
        moves.append(bare)
    return moves, result


def scoresheet_moves(start_fen: str, text: str) -> tuple[list[str], str | None]:
    """The scoresheet's moves as UCI, legal from `start_fen`, and the result it writes
    (None: none, "*": unfinished). ActionError naming the first move that is not legal."""
    if len(text) > MAX_TEXT:
        raise ActionError(
            say(
                "a scoresheet of %(length)s characters: at most %(most)s",
                length=len(text),
                most=MAX_TEXT,
            )
        )
    tokens, result = _tokens(text)
    try:
        board = chess.Board(start_fen)
    except ValueError as exc:
        raise ActionError(
            say("the game's start position is not valid: %(exc)s", exc=str(exc))
        ) from None
    ucis: list[str] = []
    for token in tokens:
        # parse_move names the move ("23...Nf9") as the arbiter reads it on the sheet.
        move = parse_move(board, token, len(ucis) + 1)
        ucis.append(move.uci())
        board.push(move)
    return ucis, result


@dataclass(frozen=True, slots=True)
class EnterScoresheet:
    """`game`'s moves are those of its scoresheet, pasted as PGN or SAN text."""

    game: str
    text: str
    kind: ClassVar[str] = "scoresheet"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        where = game_words(host.tournament, game)
        ucis, written = scoresheet_moves(game.start_fen, self.text)
        if not ucis:
            raise ActionError(
                say(
                    "no moves in that scoresheet for %(where)s: paste its moves as PGN or SAN "
                    "(1. e4 e5 2. Nf3 ...)",
                    where=where,
                )
            )
        plan = _line_plan(host, game, ucis, by, self.kind)
        notes = list(plan.notes)
        events: list[JournalEvent] = list(plan.events)
        if game.result is None:
            notes.append(
                "the game has no result yet: enter it as usual"
                + (f" (the scoresheet says {written})" if written not in (None, "*") else "")
            )
        elif written not in (None, "*") and written != game.result:
            notes.append(
                f"the scoresheet says {written}; the game's result {game.result} stays "
                "(set the result to change it)"
            )
        if game.result is not None and game.under_one_move and len(ucis) >= 2:
            # Recorded as not played (fewer than two plies on its board): played now.
            events.append(
                ResultConfirmed(
                    game.id,
                    game.result,
                    game.result_reason or "arbiter",
                    host.time_source.now(),
                    by,
                )
            )
            notes.append(f"{game.result} is recorded again as a played game")
        return replace(plan, events=tuple(events), notes=tuple(notes))
