"""Faults degrade visibly and resume by themselves: an export folder that cannot be
written for a while, and a journal on a full disk (SQLite's own "database or disk is
full", made real with `max_page_count`). Nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
from base64 import b64encode
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.journal.store import RETRY_MAX, Journal
from broadcast.publish.tasks import (
    EXPORT_RETRY_FIRST,
    FolderExporter,
    PublishSettings,
    start_publishers,
)
from broadcast.service.health import JOURNAL_ALERT, Health
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app
from web.arbiter.actions import Desk

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
GAME = "masters-r1-b1"


# -- export folder ------------------------------------------------------------------------------


def test_export_retries_with_back_off_alerts_and_catches_up(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    folder = tmp_path / "export"
    folder.write_text("an unmounted share is in the way")  # mkdir inside fails: OSError
    health = Health()
    exporter = FolderExporter(service, folder, health)
    seq = service.public_state().seq
    assert exporter.export(seq, now=0.0) is False
    alerts = Desk(service, health).alerts()
    assert alerts[0].kind == "export-failing" and str(folder) in alerts[0].message
    assert not exporter.due(seq, now=EXPORT_RETRY_FIRST / 2)  # back-off
    assert exporter.due(seq, now=EXPORT_RETRY_FIRST)
    assert exporter.export(seq, now=EXPORT_RETRY_FIRST) is False
    assert not exporter.due(seq, now=EXPORT_RETRY_FIRST * 2.5)  # doubled
    assert len(health.conditions) == 1  # one condition, not one per attempt
    folder.unlink()  # the share is back
    play_moves(service, GAME, ["e4", "c5"])
    seq = service.public_state().seq
    assert exporter.due(seq, now=100.0) and exporter.export(seq, now=100.0)
    text = (folder / "round-1" / "game-1.pgn").read_text(encoding="utf-8")
    assert "1. e4" in text and "1... c5" in text
    assert all(a.kind != "export-failing" for a in Desk(service, health).alerts())


async def test_the_publisher_task_survives_and_resumes(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    folder = tmp_path / "export"
    folder.write_text("in the way")
    health = service.health  # the desk's system alerts
    [task] = start_publishers(service, PublishSettings(folder=folder))
    try:
        for _ in range(1500):  # generous on a loaded machine
            if health.conditions:
                break
            await asyncio.sleep(0.02)
        assert "export" in health.conditions and task.running and not task.failures
        folder.unlink()
        play_moves(service, GAME, ["d4"])
        target = folder / "round-1" / "game-1.pgn"
        for _ in range(3000):
            if target.exists():
                break
            await asyncio.sleep(0.02)
        assert "1. d4" in target.read_text(encoding="utf-8")
        assert not health.conditions
    finally:
        await task.stop()


# -- disk full -----------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _fill_disk(journal: Journal) -> None:
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")


def _free_disk(journal: Journal) -> None:
    journal._db.execute("PRAGMA max_page_count = 1073741823")


@pytest.mark.expected_log(r"the journal cannot be written")  # a full disk, on purpose
async def test_disk_full_holds_events_alerts_once_and_resumes(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    journal = service.journal
    clock = Clock()
    journal.now = clock
    play_moves(service, GAME, ["e4", "e5"])
    _fill_disk(journal)
    line = ["Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]
    for san in line:  # a long burst, more than one page of journal
        play_moves(service, GAME, [san])
    assert journal.failure is not None and "disk is full" in journal.failure.reason
    assert str(tmp_path) in journal.failure.disk
    assert service.book.get(GAME).ply == 10  # the games go on

    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
        system = [a for a in alerts if a["kind"] == "journal-not-writable"]
        assert len(system) == 1 and system[0]["severity"] == "critical"
        assert "mounted at" in system[0]["message"]
        game = await (await client.get(f"/api/v1/games/{GAME}")).json()
        assert len(game["moves"]) == 10  # reads keep working
        refused = await client.post(
            f"/api/v1/arbiter/games/{GAME}/result", json={"result": "1-0"}, headers=BASIC
        )
        assert refused.status == 503 and "cannot be written" in (await refused.json())["error"]
        assert service.book.get(GAME).result in (None, "*")  # not acknowledged, not applied
        ack = await client.post(
            f"/api/v1/arbiter/alerts/{JOURNAL_ALERT}/ack", json={}, headers=BASIC
        )
        assert ack.status == 200  # writes nothing: works during the outage
        alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
        assert not [a for a in alerts if a["id"] == JOURNAL_ALERT]  # hidden once seen

        _free_disk(journal)
        clock.t += RETRY_MAX  # the back-off has passed
        play_moves(service, GAME, ["b4"])
        assert journal.failure is None
        accepted = await client.post(
            f"/api/v1/arbiter/games/{GAME}/result", json={"result": "1-0"}, headers=BASIC
        )
        assert accepted.status == 200
        alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
        assert not [a for a in alerts if a["id"] == JOURNAL_ALERT]
    finally:
        await client.close()

    # Everything, in order, is in the file: a restart loses nothing.
    path = Path(journal.path)
    journal.close()
    reopened = Journal(path)
    moves = [e.event.san for e in reopened.read() if type(e.event).__name__ == "GameMove"]
    assert moves == ["e4", "e5", *line, "b4"]
    seqs = [e.seq for e in reopened.read()]
    assert seqs == list(range(1, len(seqs) + 1))
    reopened.close()


@pytest.mark.expected_log(r"the journal cannot be written")  # a full disk, on purpose
def test_retry_without_new_events_writes_the_held_ones(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    journal = service.journal
    clock = Clock()
    journal.now = clock
    _fill_disk(journal)
    for san in ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"]:
        play_moves(service, GAME, [san])
    assert journal.failure is not None
    _free_disk(journal)
    assert journal.retry() is False  # the back-off has not passed yet
    clock.t += RETRY_MAX
    assert journal.retry() is True and journal.failure is None


def _small_disk(where: Path) -> bool:
    import subprocess

    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


@pytest.mark.expected_log(r"the journal cannot be written")  # a full disk, on purpose
def test_a_real_full_filesystem(tmp_path: Path) -> None:
    """The same on a real 2 MB filesystem (needs root to mount it; else the injected
    `max_page_count` tests above cover the path)."""
    import subprocess

    import pytest

    disk = tmp_path / "disk"
    if not _small_disk(disk):
        pytest.skip("cannot mount a tmpfs here (not root)")
    journal: Journal | None = None
    try:
        service, _ = make_service(disk, delay=0.0)
        journal = service.journal
        clock = Clock()
        journal.now = clock
        filler = disk / "filler"
        try:
            with filler.open("wb") as f:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
        except OSError:
            pass  # the disk is full
        line = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]
        for san in line:
            play_moves(service, GAME, [san])
        assert journal.failure is not None
        assert service.book.get(GAME).ply == len(line)
        filler.unlink()
        clock.t += RETRY_MAX
        assert journal.retry() and journal.failure is None
        moves = [e.event.san for e in journal.read() if type(e.event).__name__ == "GameMove"]
        assert moves == line
    finally:
        if journal is not None:
            journal.close()
        subprocess.run(["umount", "-l", str(disk)], check=False)
