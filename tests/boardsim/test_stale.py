"""Simulators killed with -9 leave run folders and registry files behind; the next start
removes them, and never anything live or anything that is not a link to a pty."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from boardsim.sim import STALE_PREFIX, clean_stale_runs, list_running


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_stale_runs_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    root, tmp = tmp_path / "root", tmp_path / "tmp"
    root.mkdir()
    tmp.mkdir()
    dead = _dead_pid()
    old_run = tmp_path / "old-run"
    old_run.mkdir()
    (old_run / "board-1").symlink_to("/dev/pts/999999")
    (root / f"{dead}-1.json").write_text(json.dumps({"pid": dead, "rundir": str(old_run)}))
    (root / f"{os.getpid()}-1.json").write_text(json.dumps({"pid": os.getpid(), "rundir": ""}))
    (root / "foreign.json").write_text("not json")
    stale_new = tmp / f"{STALE_PREFIX}pid{dead}-abc"
    stale_new.mkdir()
    (stale_new / "port-1").symlink_to("/dev/pts/999998")
    not_only_links = tmp / f"{STALE_PREFIX}pid{dead}-keep"
    not_only_links.mkdir()
    (not_only_links / "notes.txt").write_text("mine")
    live_new = tmp / f"{STALE_PREFIX}pid{os.getpid()}-live"
    live_new.mkdir()
    (live_new / "port-1").symlink_to("/dev/pts/999997")
    legacy_dead = tmp / f"{STALE_PREFIX}x1y2z3"
    legacy_dead.mkdir()
    (legacy_dead / "port-1").symlink_to("/dev/pts/999996")
    legacy_live = tmp / f"{STALE_PREFIX}q9w8e7"
    legacy_live.mkdir()
    (legacy_live / "port-1").symlink_to(tmp_path)  # its target exists: maybe in use

    removed = set(clean_stale_runs(root, tmp))

    assert removed == {old_run, root / f"{dead}-1.json", stale_new, legacy_dead}
    for kept in (
        root / f"{os.getpid()}-1.json",
        root / "foreign.json",
        not_only_links,
        live_new,
        legacy_live,
    ):
        assert kept.exists(), kept
    assert (not_only_links / "notes.txt").read_text() == "mine"


def test_a_simulator_killed_with_9_is_cleaned_up(tmp_path: Path) -> None:
    runtime = tmp_path / "xdg"
    runtime.mkdir()
    script = (
        "import asyncio, sys\n"
        "from boardsim.sim import Simulator\n"
        "async def main():\n"
        "    async with Simulator(1, first_serial=7001):\n"
        "        print('ready', flush=True)\n"
        "        await asyncio.sleep(600)\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        assert list_running(runtime / "boardsim")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    left = list((runtime / "boardsim").iterdir())
    assert left  # the registry file and the run folder are still there
    for _ in range(100):  # the kernel closes the pty as the process goes; be patient
        if not list_running(runtime / "boardsim"):
            break
        time.sleep(0.05)
    removed = clean_stale_runs(runtime / "boardsim", tmp_path / "empty-tmp")
    assert removed
    assert list((runtime / "boardsim").iterdir()) == []  # registry and run folder gone
