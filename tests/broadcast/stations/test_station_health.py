"""The stations' health as the central serve sees it (`broadcast.stations.station_health`):
pure, time passed in."""

from __future__ import annotations

from broadcast.phrases import english
from broadcast.stations.station_health import StationHealth
from broadcast.stations.wire import StationBeat, StationHello

ASSIGNED = {"east-1": (1, 2), "west-1": (3, 4)}
T0 = 1_000.0


def beat(
    station: str, t: float, offset: float = 0.0, connected: tuple[int, ...] = ()
) -> StationBeat:
    return StationBeat(station, "a1", 5, t, offset, 0.002, 2, connected)


def test_a_station_lost_is_one_alert_naming_its_boards_and_time_scales_with_speed() -> None:
    health = StationHealth(ASSIGNED, speed=10.0, since=T0)
    health.beat(beat("east-1", T0, connected=(1, 2)), T0)
    health.beat(beat("west-1", T0, connected=(3, 4)), T0)
    assert not health.conditions(T0 + 49)  # 5 s at 10x: 50 event seconds
    health.beat(beat("west-1", T0 + 40, connected=(3, 4)), T0 + 40)
    lost = health.conditions(T0 + 51)
    assert list(lost) == ["station-lost-east-1"]
    assert lost["station-lost-east-1"].severity == "critical"
    assert "boards 1, 2" in english(lost["station-lost-east-1"].message)
    health.beat(beat("east-1", T0 + 52, connected=(1, 2)), T0 + 52)
    assert not health.conditions(T0 + 52)


def test_a_station_never_heard_from_is_lost_once_the_wait_has_passed() -> None:
    health = StationHealth(ASSIGNED, speed=1.0, since=T0)
    assert not health.conditions(T0 + 4)
    assert set(health.conditions(T0 + 6)) == {"station-lost-east-1", "station-lost-west-1"}
    views = {v.name: v for v in health.views(T0 + 6)}
    assert not views["east-1"].up and not views["east-1"].seen


def test_the_view_says_lag_offset_boards_and_waiting() -> None:
    health = StationHealth(ASSIGNED, speed=1.0, since=T0, own_offset=0.25)
    health.hello(StationHello("east-1", "a1", 0, (1, 2), "capture-east", 42, T0), T0)
    health.beat(beat("east-1", T0 - 0.5, offset=0.4, connected=(1,)), T0)
    view = {v.name: v for v in health.views(T0 + 0.5)}["east-1"]
    assert view.up and view.host == "capture-east"
    assert view.lag == 1.0
    assert abs((view.offset or 0) - 0.15) < 1e-9
    assert view.connected == (1,) and view.waiting == 2 and view.boards == (1, 2)
    assert view.json()["offset"] == 0.15


def test_an_offset_past_half_a_second_is_a_warning_either_way() -> None:
    health = StationHealth(ASSIGNED, speed=1.0, since=T0, own_offset=-0.1)
    health.beat(beat("east-1", T0, offset=0.45), T0)  # 0.55 s ahead of the serve
    health.beat(beat("west-1", T0, offset=-0.5), T0)  # 0.4 s behind
    found = health.conditions(T0)
    assert list(found) == ["station-clock-east-1"]
    assert found["station-clock-east-1"].severity == "warning"
    assert "+0.55" in english(found["station-clock-east-1"].message)


def test_a_board_claimed_by_a_station_not_assigned_it_is_critical_and_refused() -> None:
    health = StationHealth(ASSIGNED, speed=1.0, since=T0)
    health.hello(StationHello("east-1", "a1", 0, (1, 2), "e", 1, T0), T0)
    health.hello(StationHello("west-1", "b1", 0, (3, 4, 2), "w", 2, T0), T0)
    health.beat(beat("west-1", T0, connected=(3, 9)), T0)
    found = health.conditions(T0)
    claims = {k: c for k, c in found.items() if c.kind == "board-claimed-twice"}
    assert set(claims) == {"board-claimed-2-west-1", "board-claimed-9-west-1"}
    assert all(c.severity == "critical" for c in claims.values())
    assert "east-1" in english(claims["board-claimed-2-west-1"].message)
    assert health.refuses("west-1", 2) and not health.refuses("east-1", 2)
    assert not health.refuses("west-1", 3)


def test_a_board_a_live_station_does_not_hold_is_missing_but_not_when_it_is_lost() -> None:
    health = StationHealth(ASSIGNED, speed=1.0, since=T0)
    for k in range(0, 22, 2):
        health.beat(beat("east-1", T0 + k, connected=(1,)), T0 + k)
    found = health.conditions(T0 + 21)
    assert [k for k, c in found.items() if c.kind == "board-missing"] == ["board-missing-2"]
    assert "capture station east-1" in english(found["board-missing-2"].message)
    later = health.conditions(T0 + 40)  # east-1 silent since T0 + 20: lost, one alert
    assert "station-lost-east-1" in later
    assert not [k for k, c in later.items() if c.kind == "board-missing"]
