"""A live round with no pairings: the service knows it, the home page tells spectators
pairings will come (no arbiter how-to), the desk and the log say how to pair it; a rehearsal (`serve --sim`) pairs it with FIDE Dutch and says so; the
README's rehearsal command shows games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time as wall
import urllib.request
from pathlib import Path

from broadcast.actions.pairings import how_to_pair, pair_unpaired
from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.event_log import assert_no_errors
from tests.support.paths import ROOT
from tests.support.web_app import free_port
from web import json_views, pages

SESTAO = ROOT / "examples" / "sestao-2025-swiss.toml"
SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"


def _service(tmp: Path, event: Path = SESTAO) -> EventService:
    service = EventService(
        load_event(event),
        Journal(tmp / "j.sqlite"),
        time_source=ManualTime(1_800_000_000.0),
        live_round=1,
    )
    service.load()
    return service


def test_unpaired_live_round_is_told_with_how_to_pair(tmp_path: Path) -> None:
    service = _service(tmp_path)
    assert service.unpaired_rounds() == {"Open": 1}
    assert service.book.round_games("Open", 1) == []
    html = pages.home_page(
        service.config,
        service.public_state(),
        service.live_rounds(),
        service.delay,
        unpaired=service.unpaired_rounds(),
    )
    assert "Open: pairings for round 1 will be published soon." in html
    # how to pair is the arbiter's business (the desk, the log), not the spectators'
    assert "/api/v1/arbiter" not in html and "Arbiters" not in html and "TRF" not in html
    assert "TRF" in how_to_pair("Open", 1) and "Dutch" in how_to_pair("Open", 1)


def test_the_notice_names_the_round_that_can_be_paired_next(tmp_path: Path) -> None:
    """Started after the whole schedule (round 9 due) with nothing paired: rounds are paired
    in order, so the notice and the rehearsal's pairing are about round 1, not round 9
    (which the API would refuse: "round 8 must be paired before round 9")."""
    service = EventService(
        load_event(SESTAO), Journal(tmp_path / "j.sqlite"), time_source=ManualTime(1_800_000_000.0)
    )
    service.load()
    assert service.unpaired_rounds() == {"Open": 1}
    said = pair_unpaired(service, "serve --sim")
    assert len(said) == 1 and "Open round 1 was not paired" in said[0], said
    assert service.unpaired_rounds() == {"Open": 2}  # round 2 is due too, and next


def test_rehearsal_pairs_the_round_with_dutch(tmp_path: Path) -> None:
    service = _service(tmp_path)
    said = pair_unpaired(service, "serve --sim")
    assert len(said) == 1 and "FIDE Dutch" in said[0] and "Open round 1" in said[0]
    games = service.book.round_games("Open", 1)
    assert len(games) == len(load_event(SESTAO).section("Open").players) // 2
    assert service.unpaired_rounds() == {}
    assert sum(1 for b in service.hall.values() if b.game is not None) == min(
        len(games), len(service.hall)
    )
    assert pair_unpaired(service, "again") == []  # nothing left to pair


def test_round_robin_rounds_are_paired_from_the_start(tmp_path: Path) -> None:
    service = _service(tmp_path, ROOT / "examples" / "pamplona-masters.toml")
    assert service.unpaired_rounds() == {}


def test_readme_rehearsal_shows_games(tmp_path: Path) -> None:
    """`serve EVENT.toml --sim --speed 20 --games ... --round 1` on the Sestao Swiss."""
    port = free_port()
    env = {**os.environ, "BOARDWIRE_ARBITER_PASSWORD": "pw"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "broadcast.cli",
            "serve",
            str(SESTAO),
            "--sim",
            "--speed",
            "20",
            "--games",
            str(SAMPLE),
            "--round",
            "1",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "rehearsal.sqlite"),
            "--delay",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=tmp_path,
    )
    try:
        deadline = wall.monotonic() + 90
        moved: list[dict[str, object]] = []
        while wall.monotonic() < deadline:
            wall.sleep(1.0)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/rounds/1") as r:
                    data = json.load(r)
            except OSError:
                continue
            moved = [g for g in data["games"] if g["ply"] > 0]
            if len(moved) >= 2:
                break
        assert len(moved) >= 2, "the rehearsal shows no moves"
        assert all(g["result"] in ("*", "1-0", "0-1", "1/2-1/2") for g in data["games"])
        # The emulated clocks are set for the event's 90'+30", not the PGN's 15-minute ones.
        clocks = [c for g in moved for c in (g["clock"]["white"], g["clock"]["black"])]  # type: ignore[index]
        assert clocks and all(c is not None and c > 4000 for c in clocks), clocks
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as r:
            home = r.read().decode()
        assert "will be published soon" not in home
        assert "demo at 20x" in home
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    log = out.decode()
    assert_no_errors(log)
    assert "Open round 1 was not paired: paired it with the FIDE Dutch engine" in log


def test_views_speed_of_reads_the_time_source(tmp_path: Path) -> None:
    service = _service(tmp_path)
    assert json_views.speed_of(service) == 1.0  # a ManualTime has no speed: a real event
