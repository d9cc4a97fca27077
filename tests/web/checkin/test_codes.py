"""The per-round codes of the table pages (web/checkin/codes.py) and their limits.

A code is easy to type (six characters, no 0/O/1/I), the same after a restart (its key is
kept with the journal), different for every section and round, replaced by a renewal
(an action through the door, undoable), and a code of an earlier round is told apart
from a wrong one. Wrong codes are limited per client and overall.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from broadcast.actions import Undo, act
from broadcast.actions.door import ConfirmationNeeded
from broadcast.actions.table import RenewRoundCode, code_generation
from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.action_log import ActionLog
from broadcast.service.committer import ActionError
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.paths import ROOT
from web.checkin.codes import ALPHABET, KEY_META, LENGTH, RoundCodes, derive_code, normalized
from web.checkin.limits import GLOBAL_BURST, PER_CLIENT_BURST, PER_CLIENT_PER_MINUTE, CodeLimits

EVENT = ROOT / "examples" / "pamplona-masters.toml"
T0 = 1_766_419_000.0
KEY = bytes(range(32))


def _service(tmp: Path) -> EventService:
    service = EventService(
        load_event(EVENT), Journal(tmp / "journal.sqlite"), time_source=ManualTime(T0), live_round=1
    )
    service.load()
    return service


def test_a_code_is_six_easy_characters() -> None:
    code = derive_code(KEY, "Open", 3)
    assert len(code) == LENGTH == 6
    assert set(code) <= set(ALPHABET)
    assert not set("0O1I") & set(ALPHABET)
    assert len(set(ALPHABET)) == 32


def test_codes_differ_per_round_section_and_generation() -> None:
    codes = {derive_code(KEY, s, r, g) for s in ("Open", "B") for r in range(1, 10) for g in (0, 7)}
    assert len(codes) == 2 * 9 * 2
    assert derive_code(KEY, "Open", 3) == derive_code(KEY, "Open", 3)  # pure
    assert derive_code(KEY, "Open", 3) != derive_code(bytes(32), "Open", 3)  # keyed


def test_codes_are_stable_across_a_restart(tmp_path: Path) -> None:
    service = _service(tmp_path)
    first = RoundCodes(service.journal, service.action_log)
    code = first.code("Masters", 1)
    key = service.journal.meta(KEY_META)
    assert key is not None and len(bytes.fromhex(key)) == 32
    service.journal.close()

    again = _service(tmp_path)
    second = RoundCodes(again.journal, again.action_log)
    assert second.code("Masters", 1) == code
    assert second.code("Masters", 2) != code
    again.journal.close()


def test_another_journal_has_other_codes(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = _service(tmp_path / "a"), _service(tmp_path / "b")
    assert RoundCodes(a.journal, a.action_log).code("Masters", 1) != RoundCodes(
        b.journal, b.action_log
    ).code("Masters", 1)


def test_check_accepts_the_code_as_typed_and_tells_an_old_round_apart(tmp_path: Path) -> None:
    service = _service(tmp_path)
    codes = RoundCodes(service.journal, service.action_log)
    r1, r3 = codes.code("Masters", 1), codes.code("Masters", 3)
    typed = f" {r3[:3].lower()}-{r3[3:]} "
    assert codes.check("Masters", 3, typed).ok
    old = codes.check("Masters", 3, r1)
    assert (old.outcome, old.round) == ("old", 1)
    assert codes.check("Masters", 3, "ZZZZZZ" if r3 != "ZZZZZZ" else "YYYYYY").outcome == "wrong"
    assert codes.check("Masters", 3, "").outcome == "empty"
    assert codes.check("Masters", 1, r3).outcome == "wrong"  # a later round's is no code


def test_renewing_a_round_code_asks_is_journaled_and_undone(tmp_path: Path) -> None:
    service = _service(tmp_path)
    codes = RoundCodes(service.journal, service.action_log)
    before = codes.code("Masters", 1)
    with pytest.raises(ConfirmationNeeded) as asked:
        act(service, RenewRoundCode("Masters", 1), "arbiter:ana")
    assert "pairing sheets" in asked.value.plan.removes[0]
    done = act(service, RenewRoundCode("Masters", 1), "arbiter:ana", confirm=True)
    assert done.record.by == "arbiter:ana"
    renewed = codes.code("Masters", 1)
    assert renewed != before
    assert codes.check("Masters", 1, before).outcome == "wrong"
    assert codes.code("Masters", 2) == RoundCodes(service.journal, ActionLog()).code("Masters", 2)
    service.journal.close()

    again = _service(tmp_path)  # the renewal is in the journal: the new code stays
    codes = RoundCodes(again.journal, again.action_log)
    assert codes.code("Masters", 1) == renewed
    act(again, Undo(done.seq), "arbiter:ana", confirm=True)
    assert code_generation(again.action_log, "Masters", 1) == 0
    assert codes.code("Masters", 1) == before


def test_renewing_the_code_of_a_round_not_paired_is_refused(tmp_path: Path) -> None:
    service = _service(tmp_path)
    with pytest.raises(ActionError, match="not paired"):
        act(service, RenewRoundCode("Masters", 99), "arbiter:ana", confirm=True)
    with pytest.raises(ActionError, match="no section"):
        act(service, RenewRoundCode("Nope", 1), "arbiter:ana", confirm=True)


@given(st.text(max_size=300))
def test_normalized_is_total_and_bounded(text: str) -> None:
    out = normalized(text)
    assert len(out) <= LENGTH + 1
    assert out == out.upper() or not out.isascii()


@given(st.text(max_size=100))
def test_check_is_total(text: str) -> None:
    codes = RoundCodes.__new__(RoundCodes)
    codes._key = KEY
    codes._cache = {}
    codes.log = ActionLog()
    verdict = codes.check("Masters", 2, text)
    assert verdict.outcome in ("ok", "empty", "old", "wrong")
    assert verdict.ok == (normalized(text) == derive_code(KEY, "Masters", 2))


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_wrong_codes_hold_the_client_then_let_it_try_again() -> None:
    clock = Clock()
    limits = CodeLimits(now=clock)
    for _ in range(PER_CLIENT_BURST):
        assert limits.wait("10.0.0.1") == 0
        limits.wrong("10.0.0.1")
    assert limits.wait("10.0.0.1") > 0
    assert limits.wait("10.0.0.2") == 0  # another client is not held
    clock.t += 60.0 / PER_CLIENT_PER_MINUTE
    assert limits.wait("10.0.0.1") == 0


def test_a_spray_from_many_clients_holds_everybody() -> None:
    clock = Clock()
    limits = CodeLimits(now=clock)
    for n in range(GLOBAL_BURST):
        limits.wrong(f"10.1.{n // 250}.{n % 250}")
    assert limits.wait("192.168.1.1") > 0
