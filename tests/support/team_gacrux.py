"""gacrux (FIDE's tie-break code) as an oracle for team standings: a TeamSectionView turned
into gacrux's own team-tournament JSON, and gacrux's ranks and tie-break values read back.

gacrux reads a team event either from a team TRF (records 310/013, 320, 330, 352, 362) or
from the JSON its TRF reader produces (`teamTournament`, `teamSize`, `scoreSystem` with a
"match" and a "game" table, teams as competitors with their players as `cplayers`, a
`matchList` whose matches name their games, a `gameList` of boards). The JSON is built here
straight from the view, with nothing computed by the product: a match's result letter is
read off the two teams' board points as gacrux's reader does (equal scores are a draw only
when both teams scored), a whole match with no board played over the board is
unplayed (a forfeit, the loser's result "Z"), a team bye is a pairing-allocated bye ("P")
worth the section's bye points, a round a team has no match in is a zero-point bye ("Z",
as a TRF 240 record gives it), an empty board is a one-sided game won by forfeit.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from gacrux.tiebreak import tiebreak as GacruxTiebreak

from broadcast.fide.teams.view import BoardGame, TeamSectionView

__all__ = ["GacruxRow", "gacrux_name", "gacrux_standings", "gacrux_tournament"]

GacruxRow = tuple[int, list[float | None]]  # rank, tie-break values in the asked order


def _dec(value: float) -> Decimal:
    return Decimal(str(value))


def _game_points(board: BoardGame) -> tuple[float, float]:
    if board.first_points is not None and board.second_points is not None:
        return board.first_points, board.second_points
    return (0.0 if board.first_player is None else 1.0, 0.0 if board.second_player is None else 1.0)


def _letter(points: float, played: bool) -> str:
    return "W" if points == 1.0 else "D" if points == 0.5 else "L" if played else "Z"


def _game(gid: int, rnd: int, board: BoardGame) -> dict[str, Any]:
    first, second = _game_points(board)
    if board.first_player is None or board.second_player is None:
        # An empty chair: the player facing it alone, as a TRF "0000 - +" would be read.
        present = board.first_player if board.first_player is not None else board.second_player
        points = first if board.first_player is not None else second
        side = {"cid": present, "result": _letter(points, False)} if present else None
        return {
            "id": gid,
            "round": rnd,
            "board": board.board,
            "white": side,
            "black": None,
            "played": False,
            "rated": False,
        }
    white, black = (board.first_player, board.second_player)
    wp, bp = first, second
    if not board.first_is_white:
        white, black, wp, bp = black, white, bp, wp
    return {
        "id": gid,
        "round": rnd,
        "board": board.board,
        "white": {"cid": white, "result": _letter(wp, board.played)},
        "black": {"cid": black, "result": _letter(bp, board.played)},
        "played": board.played,
        "rated": board.played,
    }


def gacrux_tournament(view: TeamSectionView) -> dict[str, Any]:
    """The view as gacrux's team-tournament JSON (rounds 1..view.rounds)."""
    win, draw, loss = (_dec(p) for p in view.match_points)
    bye_gp = view.boards / 2 if view.bye_game_points is None else view.bye_game_points
    score = {
        "game": {
            "W": Decimal("1.0"),
            "D": Decimal("0.5"),
            "L": Decimal("0.0"),
            "F": "W",
            "H": "D",
            "Z": Decimal("0.0"),
            "P": "W",
            "A": "D",
            "U": "Z",
        },
        "match": {
            "W": win,
            "D": draw,
            "L": loss,
            "F": "W",
            "H": "D",
            "Z": Decimal("0.0"),
            "P": _dec(view.bye_match_points),
            "A": "D",
            "U": "Z",
            "FG": "W*",
            "HG": "D*",
            "ZG": "Z*",
            "PG": _dec(bye_gp),
        },
    }
    competitors = [
        {
            "cid": team.number,
            "teamId": team.number,
            "rank": 0,
            "present": True,
            "rating": None,
            "cplayers": [{"cid": p, "teamId": team.number} for p in team.roster],
        }
        for team in view.teams
    ]
    games: list[dict[str, Any]] = []
    matches: list[dict[str, Any]] = []
    for record in view.matches:
        rnd, match = record.round, record.match
        if not 1 <= rnd <= view.rounds:
            continue
        mid = len(matches) + 1
        if match.second is None:
            matches.append(
                {
                    "id": mid,
                    "round": rnd,
                    "white": {"cid": match.first, "result": "P"},
                    "black": None,
                    "played": True,
                    "games": [],
                }
            )
            continue
        ids: list[int] = []
        first = second = 0.0
        for board in record.boards:
            a, b = _game_points(board)
            first, second = first + a, second + b
            games.append(_game(100_000 + len(games) + 1, rnd, board))
            ids.append(games[-1]["id"])
        played = any(board.played for board in record.boards)
        lose = "L" if played else "Z"
        # As gacrux's own reader decides a match: a draw needs points on both sides.
        results = (
            ("W", lose) if first > second
            else (lose, "W") if first < second
            else ("D", "D") if first > 0
            else (lose, lose)
        )  # fmt: skip
        matches.append(
            {
                "id": mid,
                "round": rnd,
                "white": {"cid": match.first, "result": results[0]},
                "black": {"cid": match.second, "result": results[1]},
                "played": played,
                "games": ids,
            }
        )
    # A team with no match in a round is what a zero-point bye record (240 "Z") gives
    # gacrux; a round left out altogether has no game points there.
    paired = {
        (m["round"], side["cid"]) for m in matches for side in (m["white"], m["black"]) if side
    }
    for team in view.teams:
        for rnd in range(1, view.rounds + 1):
            if (rnd, team.number) not in paired:
                matches.append(
                    {
                        "id": len(matches) + 1,
                        "round": rnd,
                        "white": {"cid": team.number, "result": "Z"},
                        "black": None,
                        "played": False,
                        "games": [],
                    }
                )
    return {
        "tournamentNo": 1,
        "tournamentType": "FIDE_TEAM_ROUNDROBIN" if view.round_robin else "FIDE_TEAM_MP_GP",
        "tournamentInfo": {},
        "numRounds": view.rounds,
        "currentRound": view.rounds,
        "teamTournament": True,
        "teamSize": view.boards,
        "scoreSystem": score,
        "competitors": competitors,
        "matchList": matches,
        "gameList": games,
        "rankOrder": [],
    }


def gacrux_name(name: str, edition: int) -> str:
    """Our team tie-break name in gacrux's spelling: "BH:GP-C1" is "BH:GP/C1/V2026"; the
    Olympiad's SB (OSB) is its EMGSB less the lowest opponent."""
    if name == "OSB":
        name = "EMGSB-C1"
    if name in ("MP", "GP"):
        name = name[0] + "PTS"
    base, _, cut = name.partition("-")
    return base + (f"/{cut}" if cut else "") + f"/V{edition}"


def gacrux_standings(
    view: TeamSectionView, names: Sequence[str], edition: int
) -> dict[int, GacruxRow]:
    """gacrux's rank and values of `names` (our spelling) for every team, ranked by the
    view's primary score first (MPTS or GPTS) then `names` in order."""
    tournament = gacrux_tournament(view)
    primary = "GPTS" if view.rank_by == "game-points" else "MPTS"
    params: dict[str, object] = {
        "tiebreak": [primary, *(gacrux_name(n, edition) for n in names)],
        "check": False,
        "current_round": view.rounds,
        ("pre_determined" if view.round_robin else "swiss"): True,
    }
    engine = GacruxTiebreak(tournament, view.rounds, params)
    result = engine.compute_tiebreaks(tournament, params)
    return {
        c["cid"]: (
            c["rank"],
            [None if v is None else float(v) for v in c["tiebreakScore"][1:]],
        )
        for c in result["competitors"]
    }
