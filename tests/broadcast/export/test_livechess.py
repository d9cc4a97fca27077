"""LiveChess's JSON shapes: players, pairings, results, live games, byes, rounds."""

from __future__ import annotations

import json

from broadcast.export.livechess import (
    json_text,
    player_json,
    round_index,
    split_name,
    tournament_json,
)
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_events import GameClock, ResultConfirmed
from broadcast.games.game_state import PlayerRef
from broadcast.games.ids import GameKey
from tests.support.export import T0, event, paired, play, random_line
from tests.support.livechess_sample import sample, shape_errors

MASTERS = "Masters"


def _round_one(pairs: list[Pairing] | None = None) -> GameBook:
    cfg = event()
    pairs = pairs or [Pairing(1, 1, 8), Pairing(2, 2, 7), Pairing(3, 3, 6), Pairing(4, 4, 5)]
    return GameBook().synced(paired(cfg, MASTERS, 1, pairs))


def _gid(board: int) -> str:
    return GameKey(MASTERS, 1, board).id


def test_names_split_from_last_comma_first() -> None:
    assert split_name("Errazkin, Mikel") == ("Mikel", "Errazkin")
    assert split_name("Player 1, Player A") == ("Player A", "Player 1")
    assert split_name("Magnus") == (None, "Magnus")  # a single name is a last name
    assert split_name("Van der Berg,  Anna Maria ") == ("Anna Maria", "Van der Berg")
    assert split_name("") == (None, None)


def test_player_fields_null_when_unknown_and_fide_id_a_number() -> None:
    known = PlayerRef(3, "Okonkwo, Daniel", 2500, "1503014", "IM", "NGR")
    assert player_json(known) == {
        "fname": "Daniel",
        "mname": None,
        "lname": "Okonkwo",
        "title": "IM",
        "federation": "NGR",
        "gender": None,
        "fideid": 1503014,
    }
    bare = player_json(PlayerRef(4, "Doe, Jane"))
    assert (bare["title"], bare["federation"], bare["fideid"]) == (None, None, None)
    assert player_json(PlayerRef(5, "X, Y", fide_id="n/a"))["fideid"] is None
    assert set(player_json(None).values()) == {None}


def test_a_round_with_results_says_them_as_the_pgn_does() -> None:
    book = _round_one()
    book = play(book, _gid(1), random_line(1, 20))
    book = book.apply_all(
        [
            ResultConfirmed(_gid(1), "1-0", "resignation", T0 + 900),
            ResultConfirmed(_gid(2), "1/2-1/2", "agreement", T0 + 900),
            ResultConfirmed(_gid(3), "-/+", "forfeit", T0 + 900),
            ResultConfirmed(_gid(4), "-/-", "forfeit", T0 + 900),
        ]
    )
    index = round_index(book, event().section(MASTERS), 1)
    assert [p["result"] for p in index["pairings"]] == ["1-0", "1/2-1/2", "0-1", "0-0"]
    assert not any(p["live"] for p in index["pairings"])
    first = index["pairings"][0]
    assert (first["white"]["lname"], first["white"]["fname"]) == ("Errazkin", "Mikel")
    assert first["white"]["title"] == "GM" and first["white"]["federation"] == "ESP"
    assert index["date"] == "2025-12-22"  # the round's local date
    assert shape_errors(index, sample("round-1/index.json")) == []


def test_a_live_round() -> None:
    book = _round_one()
    book = play(book, _gid(2), random_line(2, 6))  # moves: live
    book = book.apply(GameClock(_gid(3), 5400, 5400, "white", T0))  # clock started: live
    book = book.apply(ResultConfirmed(_gid(4), "0-1", "resignation", T0 + 60))  # over
    pairings = round_index(book, event().section(MASTERS), 1)["pairings"]
    assert [p["live"] for p in pairings] == [False, True, True, False]
    assert [p["result"] for p in pairings] == ["*", "*", "*", "0-1"]
    rounds = tournament_json(book, event(), MASTERS)["rounds"]
    assert rounds[0] == {"count": 4, "live": 1}
    assert rounds[1:] == [{"count": 0, "live": 0}] * 6  # every round of the section


def test_a_bye_is_no_pairing() -> None:
    book = _round_one([Pairing(1, 1, 8), Pairing(2, 2, 7), Pairing(3, 3, 6), Pairing(0, 4, None)])
    pairings = round_index(book, event().section(MASTERS), 1)["pairings"]
    assert len(pairings) == 3  # the i-th pairing is game-i.pgn: boards 1 to 3
    everyone = json.dumps(round_index(_round_one(), event().section(MASTERS), 1))
    assert "Lindqvist" in everyone and "Lindqvist" not in json.dumps(pairings)  # 4: the bye
    assert tournament_json(book, event(), MASTERS)["rounds"][0]["count"] == 3


def test_tournament_json_matches_the_sample_shape() -> None:
    data = tournament_json(_round_one(), event(), MASTERS)
    assert data["name"] == "Pamplona Masters" and data["id"] == "pamplona-masters"
    assert data["location"] == "Iruña Park Hotel, Pamplona"
    assert shape_errors(data, sample("tournament.json")) == []
    text = json_text(data)
    assert json.loads(text) == data and text.endswith("}\n") and "Iruña" in text


def test_several_sections_name_each_its_own_tournament() -> None:
    cfg = event("donostia-2009-round-robin")
    first, second = cfg.sections[0].name, cfg.sections[1].name
    one, two = tournament_json(GameBook(), cfg, first), tournament_json(GameBook(), cfg, second)
    assert one["name"] == f"{cfg.name} - {first}" and one["id"] != two["id"]
    assert len(one["rounds"]) == cfg.sections[0].rounds


def test_the_shape_check_catches_a_difference() -> None:
    theirs = sample("round-1/index.json")
    ours = json.loads(json.dumps(theirs))
    ours["pairings"][0]["live"] = "no"
    del ours["pairings"][1]["white"]["fname"]
    ours["pairings"][1]["board"] = 2
    errors = shape_errors(ours, theirs)
    assert len(errors) == 3, errors
