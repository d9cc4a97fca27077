"""What an action is about, in the words an arbiter reads: games by board and players,
players by name and number, plies by move number, and each part an action changed.

    game_words(state, game)      -> "round 2 board 3 (Agirre, Jon – Goikoetxea, Asier)"
    player_words(section, 23)    -> "Zubizarreta, Mikel (23)"
    plies_words(game, 34)        -> "plies 34-70 (17...Rxe4 to the end)"
    change_words(state, change)  -> "round 2 board 3 (...): result 0-1 (resignation)"
    hidden_words(state, grounds) -> "2 results: round 1 board 1 (Agirre, Jon – ...), ..."
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from broadcast.fide.results import REASON_TEXT
from broadcast.games.changes import Change, GamePart
from broadcast.games.game_state import GameState, MoveRecord
from broadcast.games.ids import GameKey, parse_game_id
from broadcast.tournament.changes import (
    RoundEntry,
    RoundPairing,
    SectionEntry,
    SectionLog,
    SectionMember,
    TeamPart,
)
from broadcast.tournament.news import HiddenGround
from broadcast.tournament.tournament_state import SectionState, TournamentState

__all__ = [
    "change_words",
    "game_words",
    "hidden_words",
    "move_words",
    "player_words",
    "plies_words",
    "result_words",
]


def player_words(section: SectionState, number: int) -> str:
    """ "Zubizarreta, Mikel (23)"; "player 23" for a number the section does not have."""
    entry = section.players.get(number)
    return f"{entry.name} ({number})" if entry is not None else f"player {number}"


def hidden_words(
    tournament: TournamentState, grounds: Sequence[HiddenGround], shown: int = 5
) -> str:
    """Results the broadcast delay still hides, counted and the first `shown` named: "3
    results: round 1 board 2 (A – B), round 1 board 5 (C – D) and 1 more"."""
    named = []
    for ground in grounds[:shown]:
        section = tournament.sections.get(ground.section)
        if section is None:
            continue
        where = (
            f"play-off game {ground.playoff}"
            if ground.playoff
            else f"round {ground.round}"
            + (f" board {ground.board}" if ground.black is not None else "")
        )
        if len(tournament.sections) > 1:
            where = f"{ground.section} {where}"
        if ground.black is None:
            named.append(f"{where}: the bye of {player_words(section, ground.white)}")
        else:
            pair = f"{player_words(section, ground.white)} – {player_words(section, ground.black)}"
            named.append(f"{where} ({pair})")
    more = f" and {len(grounds) - len(named)} more" if len(grounds) > len(named) else ""
    count = f"{len(grounds)} result{'s' if len(grounds) != 1 else ''}"
    return f"{count}: {', '.join(named)}{more}"


def _where(tournament: TournamentState, key: GameKey) -> str:
    several = len(tournament.sections) > 1
    section = f"{key.section} " if several else ""
    config = tournament.sections[key.section].config if key.section in tournament.sections else None
    if config is not None and key.round > config.rounds:
        return f"{section}play-off game {key.round - config.rounds} board {key.board}"
    return f"{section}round {key.round} board {key.board}"


def game_words(tournament: TournamentState, game: GameState) -> str:
    """ "round 2 board 3 (Agirre, Jon – Goikoetxea, Asier)", with the section's name
    when the event has several."""
    white = game.white.name if game.white is not None else "?"
    black = game.black.name if game.black is not None else "?"
    return f"{_where(tournament, game.key)} ({white} – {black})"


def move_words(ply: int, san: str) -> str:
    """Ply 33 Rxe4 -> "17.Rxe4"; ply 34 -> "17...Rxe4"."""
    number = (ply + 1) // 2
    return f"{number}.{san}" if ply % 2 == 1 else f"{number}...{san}"


def plies_words(moves: Sequence[MoveRecord], first: int) -> str:
    """Plies `first` to the end of `moves`: "ply 70 (35...Kg7)", "plies 34-70 (17...Rxe4
    to the end)"."""
    last = len(moves)
    if first > last:
        return "no ply"
    start = move_words(first, moves[first - 1].san)
    if first == last:
        return f"ply {first} ({start})"
    return f"plies {first}-{last} ({start} to the end)"


def result_words(result: str | None, reason: str | None) -> str:
    """ "0-1 (resignation)", "no result"."""
    if result is None:
        return "no result"
    why = REASON_TEXT.get(reason or "", reason or "")
    return f"{result} ({why})" if why else result


def _opt(value: tuple[Any, ...], show: Any) -> str:
    return show(value[0]) if value else "none"


_SECTION_WORDS = {
    "players": lambda v: f"entered ({v.name})",
    "withdrawn": lambda v: f"withdrawn from round {v}",
    "withdraw_reasons": None,  # said with the withdrawal
    "withdrawn_by": None,
    "playoff": lambda v: f"play-off game {v.number}: {v.white} - {v.black} ({v.kind})",
    "prizes_withheld": lambda v: f"prize withheld ({v})",
    "prizes_restored": lambda v: "prize restored" + (f" ({v})" if v else ""),
    "joined": lambda v: f"paired from round {v}",
    "missed_points": None,
}
_MEMBER_WORDS = {
    "granted_byes": "bye in round {}",
    "no_shows": "no-show in round {}",
    "continuations": "request to continue after round {}",
}


def _game_part_words(tournament: TournamentState, part: GamePart, reverse: bool) -> str:
    """A game's part as the action left it (`reverse`: as it was before), in words that
    read the same in "removes" and in "back" ("" for what the board alone says)."""
    value = part.before if reverse else part.after
    old = part.after if reverse else part.before
    game = (value or old)[0] if part.group == "whole" else None
    key = _key_of(part.game, tournament)
    where = _where(tournament, key) if key is not None else part.game
    if part.group == "whole":
        name = game_words(tournament, game) if game is not None else where
        if part.slot == "removed":
            return f"{name}, kept aside off the pairings" if value else ""
        if not value:
            return ""
        played = game.ply if game is not None else 0
        result = f", {game.result}" if game is not None and game.result else ""
        return f"{name}" + (f" ({played} plies{result})" if played or result else "")
    if part.group == "result":
        result, reason, proposal, _ = value
        if result is None:
            waiting = (
                f" (proposed {result_words(proposal.result, proposal.reason)} waiting)"
                if proposal is not None
                else ""
            )
            return f"no result for {where}{waiting}"
        return f"the result {result_words(result, reason)} of {where}"
    if part.group == "line":
        start, moves = value
        other = " from another start position" if start != old[0] else ""
        last = f", up to {move_words(len(moves), moves[-1].san)}" if moves else ""
        return f"the line of {where}{other}: {len(moves)} plies{last}"
    if part.group == "board":
        hall, changes = value[0], value[1]
        if (hall, changes) == (old[0], old[1]):
            return ""  # only whether the board matches: the board says it again
        return f"{where} on hall board {hall}" if hall is not None else f"{where} on its own board"
    if part.group != "players":
        return ""  # what the board said: not the arbiter's to list
    white, black = value
    names = " – ".join(p.name if p is not None else "?" for p in (white, black))
    return f"{where}: {names}"


def _key_of(game_id: str, tournament: TournamentState) -> GameKey | None:
    try:
        return parse_game_id(game_id, list(tournament.sections))
    except ValueError:
        return None


def change_words(tournament: TournamentState, change: Change, *, reverse: bool = False) -> str:
    """One part an action changed, as it became (`reverse`: as an undo makes it again);
    "" for a part said with another (a withdrawal's reason)."""
    if isinstance(change, GamePart):
        return _game_part_words(tournament, change, reverse)
    section = tournament.sections.get(change.section)
    if section is None:
        return ""
    prefix = f"{change.section}: " if len(tournament.sections) > 1 else ""
    match change:
        case SectionEntry():
            show = _SECTION_WORDS.get(change.field)
            if show is None:
                return ""
            value = change.before if reverse else change.after
            who = player_words(section, change.key)
            if change.field == "playoff":
                who = "play-off"
            if not value:
                old = change.after if reverse else change.before
                return f"{prefix}{who}: not {_opt(old, show)}"
            return f"{prefix}{who}: {show(value[0])}"
        case SectionMember():
            has = change.before if reverse else change.after
            what = _MEMBER_WORDS[change.field].format(change.member)
            who = player_words(section, change.key)
            return f"{prefix}{who}: {what}" if has else f"{prefix}{who}: no {what}"
        case SectionLog():
            return ""  # the log of requests and entries: said by the parts they changed
        case RoundPairing():
            value = change.before if reverse else change.after
            if not value:
                return f"{prefix}round {change.round}: not paired"
            games = sum(1 for p in value[0] if p.black is not None)
            return f"{prefix}round {change.round}: paired ({games} games, {value[1] or 'by hand'})"
        case RoundEntry():
            value = change.before if reverse else change.after
            if change.field == "bye_codes":
                who = player_words(section, change.key)
                return f"{prefix}round {change.round}: {who} " + (
                    f"bye {value[0]}" if value else "no bye"
                )
            # A game's result: the game's own part says it, with the board and players.
            return ""
        case TeamPart():
            return prefix + _team_part_words(section, change, reverse)
    return ""  # pragma: no cover


def _team_part_words(section: SectionState, change: TeamPart, reverse: bool) -> str:
    """A team round's matches, or a team's lineup, as the part left it."""
    value = change.before if reverse else change.after
    if not change.team:
        if not value:
            return f"round {change.round}: teams not paired"
        matches, source = value[0]
        return f"round {change.round}: {len(matches)} matches ({source or 'by hand'})"
    team = next((t.name for t in section.config.teams if t.number == change.team), "")
    who = team or f"team {change.team}"
    if not value:
        return f"round {change.round}: no lineup of {who}"
    players = ", ".join(
        player_words(section, p) if p is not None else "empty" for p in value[0].players
    )
    return f"round {change.round}: lineup of {who} ({players})"
