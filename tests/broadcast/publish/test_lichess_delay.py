"""The event's delay and a Lichess round's own delay add up: said once in the log and on
the desk, with what to do; nothing said when only one of them is set."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from broadcast.publish.lichess import LichessRelayConfig
from broadcast.publish.tasks import DELAYS_ALERT, delays_add_up, warn_if_delays_add_up
from tests.support.web_app import make_service


def test_only_both_delays_add_up() -> None:
    assert delays_add_up(900.0, 60.0) == 960.0
    assert delays_add_up(0.0, 60.0) is None
    assert delays_add_up(900.0, 0.0) is None


def test_a_negative_lichess_delay_is_refused() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        LichessRelayConfig("AbCd1234", "token", round_delay=-1.0)


def test_both_delays_are_said_once_in_the_log_and_on_the_desk(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service, clock = make_service(tmp_path, delay=900.0)
    relay = LichessRelayConfig("AbCd1234", "token", round_delay=60.0)
    with caplog.at_level(logging.WARNING, logger="broadcast.publish.tasks"):
        warn_if_delays_add_up(service, relay)
        warn_if_delays_add_up(service, relay)  # a restarted push task says nothing new
    said = [r.getMessage() for r in caplog.records if "Lichess round AbCd1234" in r.getMessage()]
    assert len(said) == 1 and "960 s" in said[0] and "to 0" in said[0]
    alerts = [a for a in service.health.alerts(None, clock.now()) if a.kind == "delays-add-up"]
    assert len(alerts) == 1 and "960 s" in alerts[0].message
    assert DELAYS_ALERT in service.health.conditions


def test_one_delay_says_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    service, clock = make_service(tmp_path, delay=900.0)
    with caplog.at_level(logging.WARNING):
        warn_if_delays_add_up(service, LichessRelayConfig("AbCd1234", "token"))
    assert not caplog.records
    assert not [a for a in service.health.alerts(None, clock.now()) if a.kind == "delays-add-up"]
