"""The arbiter's audit of the regulations (issue 31), the desk's part: disqualified
players and prizes (D4), the draw by repetition's words (D10), where a withdrawal decided
now starts (D15a), a result over a withdrawal's forfeit (D15b), and a forfeit corrected
to a played result (D1).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
from base64 import b64encode
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.actions import ConfirmationNeeded, SetResult, Withdraw, act, plan_of
from broadcast.config import load_event
from broadcast.config.loader import load_event_text
from broadcast.config.model import EventConfig, NoShowRules
from broadcast.config.warnings import config_warnings
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.eligibility import eliminated, is_active, prize_withheld, status_of
from broadcast.tournament.final_standings import section_prizes
from broadcast.tournament.tournament_state import SectionState
from clocks.timesource import ManualTime
from tests.broadcast.actions.test_door import PAMPLONA, SESTAO, _config, _game, _service
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS
from web.app import build_app
from web.json_views import result_json
from web.pages import reason_text

EXAMPLES = ROOT / "examples"
BY = "arbiter:ana"
MADRID = ZoneInfo("Europe/Madrid")
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
KEY = "eliminated_lose_prizes = true\n"


def _madrid(text: str) -> float:
    return dt.datetime.fromisoformat(text).replace(tzinfo=MADRID).timestamp()


def _sestao_text(*, key: bool = True, category: bool = False) -> str:
    """The Sestao example's text: without the prize key (as before the audit), and with
    the audit's test category (a 50 EUR prize for the players listed)."""
    text = (EXAMPLES / "sestao-2025-swiss.toml").read_text(encoding="utf-8")
    assert KEY in text
    if not key:
        text = text.replace(KEY, "")
    if category:
        block = (
            '[[section.prizes.category]]\nname = "Disq test"\nplaces = [50]\n'
            "players = [PLAYERS]\n\n[section.early_draw]\n"
        )
        text = text.replace("[section.early_draw]\n", block)
    return text


# -- D4: a regulation that disqualifies, and prizes ----------------------------------------------


def test_check_warns_of_prizes_open_to_disqualified_players_and_names_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from broadcast.cli import main

    before = load_event_text(_sestao_text(key=False), EXAMPLES / "variant.toml")
    [warning] = [w for w in config_warnings(before) if "eliminated_lose_prizes" in w]
    assert warning.startswith("section 'Open': the no-show rules disqualify players")
    assert 'first_round = "exclude"' in warning and "write eliminated_lose_prizes = true" in warning
    # The example says what becomes of their prizes: no warning, and check says it.
    for name in ("sestao-2025-swiss.toml", "sestao-2025-swiss-hall.toml"):
        fixed = load_event(EXAMPLES / name)
        assert fixed.sections[0].prizes is not None
        assert fixed.sections[0].prizes.eliminated_lose_prizes is True
        assert not config_warnings(fixed), name
    # A chief arbiter who decides at the desk says so: no warning either.
    chosen = _sestao_text().replace(KEY, "eliminated_lose_prizes = false\n")
    assert not config_warnings(load_event_text(chosen, EXAMPLES / "variant.toml"))
    # Through `boardwire check`, on a file.
    path = tmp_path / "sestao.toml"
    path.write_text(_sestao_text(key=False), encoding="utf-8")
    shutil.copytree(EXAMPLES / "players", tmp_path / "players")
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "warning: section 'Open': the no-show rules disqualify" in out
    assert main(["check", str(EXAMPLES / "sestao-2025-swiss.toml")]) == 0
    out = capsys.readouterr().out
    assert "warning:" not in out and "loses any prize (it is not awarded)" in out


def _disqualified_after_round_2(service: EventService) -> int:
    """Round 1 played (White wins everywhere), round 2 paired; the winner of board 1 is
    absent in round 2 (Sestao art. 6: disqualified unless they ask to continue)."""
    acting.pair_dutch(service, SESTAO, 1)
    for game in service.book.round_games(SESTAO, 1):
        acting.set_result(service, game.id, "1-0", reason="resignation")
    player = service.book.round_games(SESTAO, 1)[0].white.start  # type: ignore[union-attr]
    acting.pair_dutch(service, SESTAO, 2)
    game = next(
        g
        for g in service.book.round_games(SESTAO, 2)
        if player in (g.white.start, g.black.start)  # type: ignore[union-attr]
    )
    result = "-/+" if game.white.start == player else "+/-"  # type: ignore[union-attr]
    acting.set_result(service, game.id, result, reason="forfeit")
    for other in service.book.round_games(SESTAO, 2):
        if service.book.get(other.id).result is None:
            acting.set_result(service, other.id, "1/2-1/2", reason="agreement")
    acting.pair_dutch(service, SESTAO, 3)  # no request to continue: disqualified
    return player


@pytest.mark.parametrize("key", [False, True])
def test_the_sestao_prize_list_pays_no_disqualified_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: bool
) -> None:
    from broadcast.cli import main

    # Which player the scenario disqualifies does not depend on the prize category.
    (tmp_path / "probe").mkdir()
    probe = _service(tmp_path / "probe", _config("sestao-2025-swiss.toml"))
    out = _disqualified_after_round_2(probe)
    rows = section_prizes(probe.tournament.section(SESTAO))
    probe.journal.close()
    assert rows is not None
    # The category's other member: a player with no prize of their own in the probe.
    paid_in_probe = {line.start for line in rows.lines}
    other = max(
        s for s in probe.tournament.section(SESTAO).players if s not in paid_in_probe | {out}
    )
    text = _sestao_text(key=key, category=True).replace("PLAYERS", f"{out}, {other}")
    path = tmp_path / "sestao.toml"
    path.write_text(text, encoding="utf-8")
    shutil.copytree(EXAMPLES / "players", tmp_path / "players")
    service = _service(tmp_path, load_event(path))
    assert _disqualified_after_round_2(service) == out
    section = service.tournament.section(SESTAO)
    assert status_of(section, out) == "disqualified: absent in round 2"
    prizes = section_prizes(section)
    assert prizes is not None
    paid = {line.start: line.total for line in prizes.lines}
    if not key:  # the example as the audit found it: the disqualified player is paid
        assert paid[out] == 50.0
        return
    assert out not in paid
    assert [(w.start, w.reason, w.amount) for w in prizes.withheld] == [
        (out, "eliminated by the no-show rules", 0.0)
    ]
    # Sestao's `withheld = "not-awarded"` is for a prize not collected; a disqualified
    # player is out of the ranking, so the category's next player takes it.
    assert paid[other] == 50.0
    service.journal.close()
    args = ["standings", "--event", str(path), "--db", str(tmp_path / "j.sqlite"), "--prizes"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    name = section.players[out].name
    assert f"{name}: 50.00 as Disq test" not in printed
    assert "eliminated by the no-show rules" in printed


def test_a_round_1_exclusion_is_an_elimination_for_the_prizes() -> None:
    # A section that excludes round-1 absentees but counts later absences (no limit).
    config = load_event(EXAMPLES / "sestao-2025-swiss.toml").sections[0]
    assert config.prizes is not None
    prizes = dataclasses.replace(config.prizes, eliminated_lose_prizes=True)
    config = dataclasses.replace(
        config, no_show_limit=None, no_shows=NoShowRules(first_round="exclude"), prizes=prizes
    )
    state = SectionState(config, no_shows={7: (1,), 8: (2,)})
    assert eliminated(state, 7) and prize_withheld(state, 7) == "eliminated by the no-show rules"
    assert not eliminated(state, 8)


# -- D10: a draw by repetition entered at the desk -------------------------------------------------


def test_a_desk_draw_by_repetition_is_not_published_as_fivefold(tmp_path: Path) -> None:
    service = _service(tmp_path, _config("sestao-2025-swiss.toml"))
    acting.pair_dutch(service, SESTAO, 1)
    game = _game(service, SESTAO, 1, 2)
    done = acting.set_result(service, game, "1/2-1/2", reason="repetition")
    words = result_json(service.book.get(game))
    assert words["result_reason"] == "repetition"
    assert "fivefold" not in done.summary
    # The pages say it in the arbiter's and the public's languages.
    assert reason_text(words["result_reason"], "es") == "repetición"
    assert reason_text(words["result_reason"], "eu") == "errepikapena"


# -- D15a: a withdrawal decided now -----------------------------------------------------------------


def _pamplona_at(tmp_path: Path, when: str) -> EventService:
    config: EventConfig = load_event(EXAMPLES / "pamplona-masters.toml")
    time_source = ManualTime(_madrid(when))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    return service


def _games_of(service: EventService, section: str, player: int) -> dict[int, str]:
    return {
        r: g.id
        for r in sorted(service.tournament.section(section).rounds)
        for g in service.book.round_games(section, r)
        if player in (g.white.start, g.black.start)  # type: ignore[union-attr]
    }


def test_a_round_robin_withdrawal_from_now_leaves_the_rounds_begun_alone(tmp_path: Path) -> None:
    # The audit's edge case: round 4's morning, the results of rounds 1-3 not entered yet.
    service = _pamplona_at(tmp_path, "2025-12-26T11:00:00")
    games = _games_of(service, PAMPLONA, 6)
    plan = plan_of(service, Withdraw(PAMPLONA, 6, reason="ill"), BY)
    assert plan.summary == "Hadžić, Emir (6) withdrawn from round 4 (ill)"
    assert plan.removes[0] == "Hadžić, Emir (6)'s participation from round 4 on"
    assert len(plan.removes) == 5  # and the games of rounds 4-7, each a forfeit instead
    assert all("not played: the forfeit" in r for r in plan.removes[1:])
    stays = [n for n in plan.notes if "is already paired and stays" in n]
    assert len(stays) == 3 and stays[0].startswith("round 1 board")
    acting.do(service, Withdraw(PAMPLONA, 6, reason="ill"), BY)
    book = service.book
    assert [book.get(games[r]).result for r in (1, 2, 3)] == [None, None, None]
    assert all(book.get(games[r]).result_reason == "withdrawal" for r in (4, 5, 6, 7))
    assert service.tournament.section(PAMPLONA).withdrawn == {6: 4}


def test_a_round_robin_round_with_a_result_in_advance_has_begun(tmp_path: Path) -> None:
    # Before round 1: nothing begun, except a round-2 game played in advance.
    service = _pamplona_at(tmp_path, "2025-12-22T10:00:00")
    assert plan_of(service, Withdraw(PAMPLONA, 6), BY).summary.startswith(
        "Hadžić, Emir (6) withdrawn from round 1"
    )
    acting.set_result(service, service.book.round_games(PAMPLONA, 1)[0].id, "1-0", BY, "agreement")
    assert "from round 2" in plan_of(service, Withdraw(PAMPLONA, 6), BY).summary


def test_a_swiss_withdrawal_from_now_starts_at_the_next_round_to_be_paired(
    tmp_path: Path,
) -> None:
    service = _service(tmp_path, _config("sestao-2025-swiss.toml"))
    acting.pair_dutch(service, SESTAO, 1)  # paired, no result yet
    game = service.book.get(_game(service, SESTAO, 1, 3))
    player = game.white.start  # type: ignore[union-attr]
    plan = plan_of(service, Withdraw(SESTAO, player), BY)
    assert "withdrawn from round 2" in plan.summary
    assert plan.removes == (f"{game.white.name} ({player})'s participation from round 2 on",)  # type: ignore[union-attr]
    assert plan.notes[0].startswith("round 1 board 3 (")
    assert "withdraw them from round 1 instead to make it the withdrawal's forfeit" in plan.notes[0]
    assert "a forfeit with the reason withdrawal, not a no-show" in plan.notes[0]
    acting.do(service, Withdraw(SESTAO, player), BY)
    assert service.book.get(game.id).result is None  # the arbiter decides its result
    section = service.tournament.section(SESTAO)
    assert section.withdrawn[player] == 2 and is_active(section, player, 1)
    # From round 1 when the arbiter says so: the paired game is the withdrawal's forfeit.
    other = service.book.get(_game(service, SESTAO, 1, 4))
    black = other.black.start  # type: ignore[union-attr]
    acting.do(service, Withdraw(SESTAO, black, from_round=1), BY)
    assert (service.book.get(other.id).result, service.book.get(other.id).result_reason) == (
        "+/-",
        "withdrawal",
    )


# -- D15b: a result over a withdrawal's forfeit -----------------------------------------------------


def _withdrawn_forfeit(service: EventService) -> str:
    acting.withdraw(service, PAMPLONA, 6, from_round=5, reason="ill")
    return _games_of(service, PAMPLONA, 6)[6]


def test_a_result_over_a_withdrawal_forfeit_asks_for_the_override_naming_it(
    tmp_path: Path,
) -> None:
    service = _service(tmp_path, _config("pamplona-masters.toml"))
    game = _withdrawn_forfeit(service)
    with pytest.raises(ConfirmationNeeded) as asked:
        act(service, SetResult(game, "1-0", "resignation"), BY)
    plan = asked.value.plan
    assert plan.summary.endswith(
        "1-0 (resignation), overriding the withdrawal of Hadžić, Emir (6) from round 5 (ill)"
    )
    assert plan.removes[0].startswith("the withdrawal's forfeit +/- (withdrawal) of round 6")
    assert "the arbiter's override" in plan.notes[0]
    assert service.book.get(game).result_reason == "withdrawal"  # nothing done yet
    done = act(service, SetResult(game, "1-0", "resignation"), BY, confirm=plan.token)
    assert (service.book.get(game).result, service.book.get(game).result_reason) == (
        "1-0",
        "resignation",
    )
    assert 6 in service.tournament.section(PAMPLONA).withdrawn
    record = service.action_log.recent()[0]
    assert record.seq == done.seq and "overriding the withdrawal" in record.summary
    acting.undo(service, done)
    assert service.book.get(game).result_reason == "withdrawal"
    # Another result on an ordinary game asks as before, without a word of withdrawals.
    other = service.book.round_games(PAMPLONA, 1)[0].id
    acting.set_result(service, other, "1-0", reason="resignation")
    with pytest.raises(ConfirmationNeeded) as again:
        act(service, SetResult(other, "0-1", "resignation"), BY)
    assert "withdrawal" not in again.value.plan.summary


async def test_a_result_over_a_withdrawal_forfeit_over_the_api(tmp_path: Path) -> None:
    service = _service(tmp_path, _config("pamplona-masters.toml"))
    game = _withdrawn_forfeit(service)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        url = f"/api/v1/arbiter/games/{game}/result"
        body = {"result": "1-0", "reason": "resignation"}
        asked = await client.post(url, json=body, headers=BASIC)
        assert asked.status == 409
        answer = await asked.json()
        assert "overriding the withdrawal of Hadžić, Emir (6) from round 5" in answer["error"]
        token = answer["confirm"]["token"]
        assert service.book.get(game).result_reason == "withdrawal"
        done = await client.post(url, json={**body, "confirm": token}, headers=BASIC)
        assert done.status == 200, await done.text()
        assert service.book.get(game).result == "1-0"
        listed = await (await client.get("/api/v1/arbiter/actions", headers=BASIC)).json()
        assert "overriding the withdrawal" in listed[0]["summary"]
    finally:
        await client.close()


# -- D1: a forfeit corrected to a played result (Sestao's reproduction) -----------------------------


def test_a_corrected_round_1_forfeit_lifts_the_exclusion_and_its_undo_brings_it_back(
    tmp_path: Path,
) -> None:
    service = _service(tmp_path, _config("sestao-2025-swiss.toml"))
    acting.pair_dutch(service, SESTAO, 1)
    game = _game(service, SESTAO, 1, 7)
    absent = service.book.get(game).white.start  # type: ignore[union-attr]
    acting.set_result(service, game, "-/+", reason="forfeit")
    section = service.tournament.section(SESTAO)
    assert status_of(section, absent) == "withdrawn from round 2 (absent in round 1)"
    corrected = acting.set_result(service, game, "0-1", reason="resignation")
    section = service.tournament.section(SESTAO)
    assert status_of(section, absent) == "" and not section.no_shows
    acting.request_bye(service, SESTAO, 3, absent)  # in the event again
    acting.cancel_bye(service, SESTAO, 3, absent)
    acting.undo(service, corrected)  # the forfeit stands again, and so does the exclusion
    section = service.tournament.section(SESTAO)
    assert section.no_shows == {absent: (1,)} and section.withdrawn == {absent: 2}
