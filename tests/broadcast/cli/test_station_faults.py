"""A venue of two capture stations under faults, every part a real process: the emulated
boards (`boardwire sim`), a redis-server, two `boardwire station` processes (east: boards
1-2, west: boards 3-4) and the central `boardwire serve --stations`. Each fault happens
mid-round; at the end every game is exact, move for move, and every clock time is within
1 s of what the clock showed (the simulator's truth), in the API and in the journal:

- a station killed (-9) and restarted: its boards' moves meanwhile come from their logs;
- Redis unreachable for 60 s: the stations keep their events in their outboxes and send
  them in order when it is back (the central serve reconnects too);
- the central serve killed (-9) and restarted: entries it had read but not made durable
  are read again, none applied twice;
- a station's network cut (a relay that silences the link, as a pulled cable does) while
  its boards play on: the central serve raises one alert naming the station's boards, and
  the station catches up once the link is back. That station's boards are found by their
  serial numbers (no port, no station in the config): it probes the ports it is told to
  and the central serve places them where it finds them.
"""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from broadcast.service.journal_reader import read_event
from tests.support.paths import ROOT
from tests.support.redis_server import RedisProcess
from tests.support.sim_round import BOARDWIRE, BoardSim, api, clock_errors, wait_up
from tests.support.tcp_proxy import TcpProxy
from tests.support.web_app import free_port

EVENT = ROOT / "examples" / "pamplona-masters.toml"
PLIES = 18
SPEED = 10.0
STATIONS = {1: "east", 2: "east", 3: "west", 4: "west"}
FIRMWARE = ["classic", "no-beginpos", "start-tag", "watchdog"]
PASSWORD = "station-faults-password"


def station_config(path: Path, ports: list[str], found: frozenset[int] = frozenset()) -> Path:
    """The example with its four boards on the two stations, at the simulator's ports;
    the boards in `found` by their serial numbers only (the simulator's 1000N)."""
    text = EVENT.read_text(encoding="utf-8")
    boards = "".join(
        f'[[board]]\nnumber = {n}\nserial = "{10000 + n}"\nsection = "Masters"\n\n'
        if n in found
        else f'[[board]]\nnumber = {n}\nport = "{ports[n - 1]}"\nsection = "Masters"\n'
        f'station = "{STATIONS[n]}"\n\n'
        for n in range(1, 5)
    )
    path.write_text(text[: text.index("[[board]]")] + boards, encoding="utf-8")
    return path


def arbiter(port: int, path: str) -> object:
    """An arbiter API answer (HTTP Basic with the test's login)."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    token = f"arbiter:{PASSWORD}".encode()
    request.add_header("Authorization", "Basic " + base64.b64encode(token).decode())
    with urllib.request.urlopen(request, timeout=2) as response:
        return json.loads(response.read())


class Venue:
    """The boards, Redis, the stations and the central serve of one test."""

    def __init__(self, tmp: Path, seed: int, found: frozenset[int] = frozenset()) -> None:
        self.tmp = tmp
        folder = tmp / "redis"
        folder.mkdir()
        self.redis = RedisProcess(folder)
        self.redis.start()
        self.sim = BoardSim(tmp, boards=4, plies=PLIES, speed=SPEED, seed=seed, firmware=FIRMWARE)
        self.event = station_config(tmp / "venue.toml", self.sim.paths, found)
        self.db, self.port = tmp / "journal.sqlite", free_port()
        self.env = {**self.sim.env, "BOARDWIRE_ARBITER_PASSWORD": PASSWORD}
        self.serve: subprocess.Popen[bytes] | None = None
        self.stations: dict[str, subprocess.Popen[bytes]] = {}
        self.proxies: dict[str, TcpProxy] = {}
        self.runs = 0

    def url_for(self, station: str) -> str:
        proxy = self.proxies.get(station)
        return proxy.url if proxy is not None else self.redis.url

    def start_serve(self, *extra: str) -> subprocess.Popen[bytes]:
        self.runs += 1
        with (self.tmp / f"serve-{self.runs}.log").open("wb") as log:
            self.serve = subprocess.Popen(
                [
                    *BOARDWIRE, "serve", str(self.event), "--db", str(self.db),
                    "--port", str(self.port), "--speed", str(SPEED), "--delay", "0",
                    "--stations", self.redis.url, *extra,
                ],
                stdout=subprocess.DEVNULL, stderr=log, env=self.env, cwd=ROOT,
            )  # fmt: skip
        wait_up(self.port, self.serve)
        return self.serve

    def start_station(self, name: str, *extra: str) -> subprocess.Popen[bytes]:
        self.runs += 1
        with (self.tmp / f"station-{name}-{self.runs}.log").open("wb") as log:
            proc = subprocess.Popen(
                [
                    *BOARDWIRE, "station", "--redis", self.url_for(name),
                    "--event", "Pamplona Masters", "--name", name,
                    "--outbox", str(self.tmp / f"outbox-{name}.sqlite"), *extra,
                ],
                stdout=subprocess.DEVNULL, stderr=log, env=self.env, cwd=ROOT,
            )  # fmt: skip
        self.stations[name] = proc
        return proc

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def moves(self) -> list[list[str]]:
        out = []
        for board in range(1, 5):
            game = api(self.port, f"/api/v1/games/masters-r1-b{board}")
            assert isinstance(game, dict)
            out.append([m["uci"] for m in game["moves"]])
        return out

    def plies(self) -> int:
        return sum(len(m) for m in self.moves())

    def complete(self) -> bool:
        """Every game has all its moves, each with its clock time."""
        for board in range(1, 5):
            game = api(self.port, f"/api/v1/games/masters-r1-b{board}")
            assert isinstance(game, dict)
            if len(game["moves"]) < PLIES or any(m["clock"] is None for m in game["moves"]):
                return False
        return True

    def wait(self, check: Callable[[], bool], seconds: float, what: str) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert self.serve is not None and self.serve.poll() is None, self.trouble()
            try:
                if check():
                    return
            except OSError:
                pass
            time.sleep(0.25)
        raise AssertionError(f"{what}: not within {seconds} s\n{self.trouble()}")

    def trouble(self) -> str:
        return self.sim.trouble()

    def check(self) -> None:
        """Every game exact and every clock within 1 s, in the API and the journal."""
        self.wait(self.complete, 120, "the round complete")
        assert self.moves() == self.sim.expected, self.trouble()
        assert self.serve is not None
        self.serve.send_signal(signal.SIGTERM)
        self.serve.wait(timeout=15)
        record = read_event(self.event, self.db)
        games = [record.book.get(f"masters-r1-b{b}").moves for b in range(1, 5)]
        assert [[m.uci for m in moves] for moves in games] == self.sim.expected
        wrong = clock_errors(games, self.sim.truth_presses(), allowance=1.0)
        assert wrong == {board: [] for board in range(1, 5)}, (wrong, self.trouble())

    def close(self) -> None:
        for proc in [*self.stations.values(), self.serve]:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        for proxy in self.proxies.values():
            proxy.close()
        self.sim.close()
        self.redis.stop()


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Venue]:
    place = Venue(tmp_path, seed=1)
    try:
        yield place
    finally:
        place.close()


def start_all(venue: Venue) -> None:
    venue.start_serve("--round", "1")
    venue.start_station("east")
    venue.start_station("west")


@pytest.mark.timeout(200)
def test_a_station_killed_and_restarted_loses_nothing(venue: Venue) -> None:
    start_all(venue)
    venue.wait(lambda: venue.plies() >= 8, 90, "the games under way")
    venue.kill(venue.stations["east"])
    time.sleep(4)  # 40 s at the boards: east's boards play on, logging to their EEPROMs
    venue.start_station("east")
    venue.check()


@pytest.mark.timeout(260)
def test_redis_unreachable_for_60_seconds_loses_nothing(venue: Venue) -> None:
    start_all(venue)
    venue.wait(lambda: venue.plies() >= 8, 90, "the games under way")
    before = venue.plies()
    venue.redis.kill()
    time.sleep(60)  # the games go on; the stations keep what their boards say
    venue.redis.start()
    venue.wait(lambda: venue.plies() > before + 8, 60, "the outage's moves arriving")
    venue.check()


@pytest.mark.timeout(200)
def test_the_central_serve_killed_and_restarted_loses_nothing(venue: Venue) -> None:
    start_all(venue)
    for wait_plies in (6, 20):

        def under_way(n: int = wait_plies) -> bool:
            return venue.plies() >= n

        venue.wait(under_way, 90, "the games under way")
        assert venue.serve is not None
        venue.kill(venue.serve)
        time.sleep(2)
        venue.start_serve()
    venue.check()


@pytest.mark.timeout(200)
def test_a_station_network_cut_while_its_boards_play(tmp_path: Path) -> None:
    # West's boards (3, 4) have no port and no station in the config: west finds them by
    # their serial numbers on the ports it is told to look at, and the central serve
    # places them there.
    venue = Venue(tmp_path, seed=1, found=frozenset({3, 4}))
    try:
        network_cut(venue)
    finally:
        venue.close()
    log = "".join(p.read_text() for p in tmp_path.glob("serve-*.log"))
    for board in (3, 4):
        assert f"board {board} (serial {10000 + board}) found on capture station west" in log


def network_cut(venue: Venue) -> None:
    proxy = TcpProxy(venue.redis.port)
    proxy.start()
    venue.proxies["west"] = proxy
    venue.start_serve("--round", "1")
    venue.start_station("east")
    venue.start_station("west", "--probe", venue.sim.paths[2], "--probe", venue.sim.paths[3])
    venue.wait(lambda: all(len(m) >= 3 for m in venue.moves()), 90, "every game under way")
    proxy.cut()

    def lost_alert() -> bool:
        alerts = arbiter(venue.port, "/api/v1/arbiter/alerts")
        assert isinstance(alerts, list)
        return any(a.get("kind") == "station-lost" for a in alerts)

    venue.wait(lost_alert, 30, "the station-lost alert")
    alerts = arbiter(venue.port, "/api/v1/arbiter/alerts")
    assert isinstance(alerts, list)
    lost = [a for a in alerts if a.get("kind") == "station-lost"]
    assert len(lost) == 1 and "3" in lost[0]["message"] and "4" in lost[0]["message"]
    time.sleep(8)  # 80 s at the boards: past the 60 s after which a silent board alarms
    alerts = arbiter(venue.port, "/api/v1/arbiter/alerts")
    assert isinstance(alerts, list)
    # one alert for the station, none per board: its boards are unheard, not silent
    assert [a["kind"] for a in alerts if a.get("kind") == "station-lost"] == ["station-lost"]
    assert not any(a.get("kind") == "board-not-responding" for a in alerts), alerts
    proxy.mend()
    venue.check()
