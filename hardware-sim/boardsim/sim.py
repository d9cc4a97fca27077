"""The simulator: N boards on N ptys (single mode) or one bus line of N boards, with games.

Each run keeps its device links in a run directory and announces itself in a small JSON
registry file (<runtime>/<pid>.json, removed on exit) so that port listings can show the
simulated devices next to real ones: see `list_running()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import chess.pgn

from boardsim.board import EmulatedBoard
from boardsim.busline import BusLine
from boardsim.firmware import DEFAULT_FIRMWARE, Firmware, firmware_named
from boardsim.paced import BYTES_PER_SECOND
from boardsim.pty import PtyHost
from boardsim.script import (
    Action,
    HabitsName,
    actions_for_game,
    habits_named,
    human_actions_for_game,
    play,
)
from boardsim.timing import ScaledTime

log = logging.getLogger(__name__)

FIRST_SERIAL = 10001


@dataclass(frozen=True, slots=True)
class PowerLoss:
    """A power cut: `at` simulated seconds after the games start, for `seconds`, on board
    `board` (0-based, in the simulator's order) or on every board (None)."""

    at: float
    seconds: float
    board: int | None = None

    @classmethod
    def parse(cls, text: str) -> PowerLoss:
        """`AT:SECONDS` or `AT:SECONDS:BOARD` (BOARD counted from 1)."""
        parts = text.split(":")
        try:
            if len(parts) not in (2, 3):
                raise ValueError
            at, seconds = float(parts[0]), float(parts[1])
            board = int(parts[2]) - 1 if len(parts) == 3 else None
        except ValueError:
            raise ValueError(
                f"a power loss is AT:SECONDS or AT:SECONDS:BOARD (e.g. 60:2 or 60:2:3), not {text!r}"
            ) from None
        if at < 0 or seconds <= 0 or (board is not None and board < 0):
            raise ValueError(f"a power loss needs AT >= 0, SECONDS > 0 and BOARD >= 1: {text!r}")
        return cls(at, seconds, board)


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """One emulated board as a host sees it: the stable path to open, and who answers there."""

    path: str
    serial: str
    mode: str  # "single" (its own port) or "bus" (on a shared line, at `address`)
    address: int | None
    board: int  # index of the board on its port (0 for single mode)


def runtime_root() -> Path:
    """Where running simulators register: $XDG_RUNTIME_DIR/boardsim or /tmp/boardsim-<uid>."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and Path(xdg).is_dir():
        return Path(xdg) / "boardsim"
    return Path(tempfile.gettempdir()) / f"boardsim-{os.getuid()}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def list_running(root: Path | None = None) -> list[dict[str, object]]:
    """The devices of every running simulator: path, tty, serial, mode, address, pid.

    Files left behind by simulators that died are skipped.
    """
    root = root if root is not None else runtime_root()
    found: list[dict[str, object]] = []
    if not root.is_dir():
        return found
    for entry in sorted(root.glob("*.json")):
        try:
            record = json.loads(entry.read_text())
            pid = int(record["pid"])
            devices = list(record["devices"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # half-written or foreign file
        if not _alive(pid):
            continue
        for device in devices:
            path = str(device.get("path", ""))
            tty = os.path.realpath(path) if os.path.islink(path) else None
            found.append({**device, "tty": tty, "pid": pid})
    return found


STALE_PREFIX = "boardwire-sim-"  # run folders of `serve --sim`: boardwire-sim-pid<N>-<random>


def run_folder_prefix() -> str:
    """The prefix of a new run folder: it names this process, so a later run can tell."""
    return f"{STALE_PREFIX}pid{os.getpid()}-"


def _only_links(folder: Path) -> list[Path] | None:
    """The symlinks that are all `folder` holds (None if it holds anything else)."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return None
    return entries if all(e.is_symlink() for e in entries) else None


def _remove_links(folder: Path) -> bool:
    """Remove a run folder that holds nothing but links to ptys; never anything else."""
    links = _only_links(folder)
    if links is None:
        return False
    try:
        for link in links:
            link.unlink()
        folder.rmdir()
    except OSError:
        return False
    return True


def clean_stale_runs(root: Path | None = None, tmp: Path | None = None) -> list[Path]:
    """Remove what simulators killed with -9 left behind; returns what was removed.

    Stale means: a registry file whose process is gone (with its run folder), a run
    folder named after a dead process, or an old-style run folder whose every link points
    at a pty that no longer exists. Folders holding anything but links are left alone;
    a live simulator's files never qualify.
    """
    root = root if root is not None else runtime_root()
    tmp = tmp if tmp is not None else Path(tempfile.gettempdir())
    removed: list[Path] = []
    if root.is_dir():
        for entry in sorted(root.glob("*.json")):
            try:
                record = json.loads(entry.read_text())
                pid = int(record["pid"])
                rundir = Path(str(record.get("rundir", "")))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # half-written or foreign: not ours to judge
            if _alive(pid):
                continue
            if rundir.is_dir() and _remove_links(rundir):
                removed.append(rundir)
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()
                removed.append(entry)
    for folder in sorted(tmp.glob(STALE_PREFIX + "*")):
        if not folder.is_dir() or folder.is_symlink():
            continue
        rest = folder.name[len(STALE_PREFIX) :]
        pid_text = rest[3:].split("-", 1)[0] if rest.startswith("pid") else ""
        if pid_text.isascii() and pid_text.isdigit():
            stale = not _alive(int(pid_text))
        else:
            links = _only_links(folder)
            stale = links is not None and not any(link.exists() for link in links)
        if stale and _remove_links(folder):
            removed.append(folder)
    return removed


class _QuietGameBuilder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """python-chess's builder without its ERROR log line per bad move: the caller turns
    `game.errors` into one message for the user instead."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def load_games(path: Path | str) -> list[chess.pgn.Game]:
    """Every game of a PGN file; an error a user can act on if there is none."""
    p = Path(path)
    try:
        handle = p.open(encoding="utf-8-sig")
    except OSError as e:
        raise ValueError(f"cannot read PGN file {p}: {e.strerror}") from e
    games: list[chess.pgn.Game] = []
    with handle:
        while True:
            try:
                game = chess.pgn.read_game(handle, Visitor=_QuietGameBuilder)
            except UnicodeDecodeError as e:
                raise ValueError(f"cannot read PGN file {p}: not UTF-8 ({e.reason})") from e
            except Exception as e:  # python-chess fails on some damaged text (a stray ")(")
                raise ValueError(
                    f"{p}: game {len(games) + 1} does not parse ({type(e).__name__}): check "
                    "its parentheses, braces and move text"
                ) from e
            if game is None:
                break
            if game.errors:
                raise ValueError(f"{p}: game {len(games) + 1} does not parse: {game.errors[0]}")
            games.append(game)
    if not games:
        raise ValueError(f"{p} holds no PGN games")
    return games


class Simulator:
    """Starts the emulated devices, plays the games, registers itself; `stop()` undoes it all.

    `habits="realistic"` has the players move pieces the way people do (`boardsim.humans`:
    sliding pieces, captures in either order, fast replies, j'adoube, takebacks, rotated
    boards, result signals with the kings), seeded by `seed` and the board number;
    `habits="none"` keeps the tidy scripted hands (`boardsim.script.actions_for_game`).
    The boards send their EEPROM log at 9600 baud in simulated time, as real boards do
    (about 8 s); `instant_download=True` sends it at once. `firmware`: the variant of
    every board, or a list given to the boards in turn (`boardsim.firmware`).
    `power_losses`: power cuts to inject while the games are played. `truth`: a file
    that gets one JSON line per board once its game is played: the board, its serial
    and every clock press as [side that stopped, the time it showed] (the first one
    starts the clock), for tests to check the clock times a host recorded.
    """

    def __init__(
        self,
        boards: int = 1,
        *,
        bus: bool = False,
        games: Sequence[chess.pgn.Game] = (),
        speed: float = 1.0,
        rundir: Path | str | None = None,
        first_serial: int = FIRST_SERIAL,
        seed: int = 0,
        line_speed: bool = False,
        max_think: float | None = None,
        game_delay: float = 0.0,
        register: bool = True,
        habits: HabitsName = "none",
        instant_download: bool = False,
        firmware: str | Firmware | Sequence[str | Firmware] = DEFAULT_FIRMWARE,
        power_losses: Sequence[PowerLoss] = (),
        truth: Path | str | None = None,
    ) -> None:
        if not 1 <= boards <= 99:
            raise ValueError(f"--boards takes 1 to 99 boards, not {boards}")
        if first_serial < 1 or first_serial + boards - 1 > 99999:
            raise ValueError("serial numbers must stay within 00001..99999 (5 digits)")
        addresses = [(first_serial + i) & 0x3FFF for i in range(boards)]
        if 0 in addresses or (bus and len(set(addresses)) != len(addresses)):
            raise ValueError(
                "serial numbers 16384 apart share a bus address (its 14 bits), and a multiple "
                "of 16384 answers at 0, the broadcast address: choose other serials"
            )
        variants = [firmware] if isinstance(firmware, str | Firmware) else list(firmware)
        self.firmware = [firmware_named(f) for f in variants] or [firmware_named(DEFAULT_FIRMWARE)]
        for loss in power_losses:
            if loss.board is not None and loss.board >= boards:
                raise ValueError(f"a power loss on board {loss.board + 1}, of {boards} boards")
        self.power_losses = list(power_losses)
        self.truth = Path(truth) if truth is not None else None
        self.habits = habits_named(habits)  # checks the name before anything starts
        self.habits_name = habits
        self.board_count = boards
        self.bus = bus
        self.games = list(games)
        self.clock = ScaledTime(speed)
        self.speed = speed
        self.rundir = Path(rundir) if rundir is not None else runtime_root() / str(os.getpid())
        self.first_serial = first_serial
        self.seed = seed
        self.line_speed = line_speed
        self.max_think = max_think
        self.game_delay = game_delay
        self.register = register
        self.instant_download = instant_download
        self.hosts: list[PtyHost] = []
        self.devices: list[DeviceInfo] = []
        self._players: list[asyncio.Task[None]] = []
        self.failures: list[Exception] = []  # players (and ports) that stopped on an error
        self._faults: list[asyncio.Task[None]] = []
        self._registry: Path | None = None

    @property
    def registry_path(self) -> Path | None:
        return self._registry

    def _serials(self) -> list[str]:
        return [f"{self.first_serial + i:05d}" for i in range(self.board_count)]

    async def start(self) -> list[DeviceInfo]:
        if self.register:
            clean_stale_runs()  # what simulators killed with -9 left behind
        t = self.clock.now()
        serials = self._serials()
        if self.bus:
            line = BusLine([self._board(s, i, t) for i, s in enumerate(serials)])
            host = self._host(line, "bus-1")
            await host.start()
            self.devices = [
                DeviceInfo(str(host.path), s, "bus", b.address, i)
                for i, (s, b) in enumerate(zip(serials, host.boards, strict=True))
            ]
            targets = [(host, i) for i in range(len(serials))]
        else:
            targets = []
            for i, s in enumerate(serials):
                host = self._host(self._board(s, i, t), f"board-{i + 1}")
                await host.start()
                self.devices.append(DeviceInfo(str(host.path), s, "single", None, 0))
                targets.append((host, 0))
        if self.register:
            self._write_registry()
        if self.games:
            for i, (host, index) in enumerate(targets):
                game = self.games[i % len(self.games)]
                self._players.append(asyncio.create_task(self._play(host, index, game, i)))
        for loss in self.power_losses:
            hit = targets if loss.board is None else [targets[loss.board]]
            self._faults.append(asyncio.create_task(self._cut_power(loss, hit)))
        return list(self.devices)

    async def _cut_power(self, loss: PowerLoss, hit: Sequence[tuple[PtyHost, int]]) -> None:
        try:
            await asyncio.sleep(self.game_delay + loss.at / self.speed)
            for host, index in hit:
                host.lose_power(loss.seconds, board=index)
        except Exception as exc:
            # Logged when it happens, like a player's failure; stop() does not raise it.
            log.exception("emulated power loss at %.1f s stopped: %s", loss.at, exc)
            self.failures.append(exc)
            raise

    def _board(self, serial: str, number: int, t: float) -> EmulatedBoard:
        rate = None if self.instant_download else BYTES_PER_SECOND
        firmware = self.firmware[number % len(self.firmware)]
        return EmulatedBoard(
            serial, seed=self.seed * 1000 + number, t=t, download_rate=rate, firmware=firmware
        )

    def _host(self, device: EmulatedBoard | BusLine, name: str) -> PtyHost:
        host = PtyHost(
            device, self.rundir / name, time_source=self.clock, line_speed=self.line_speed
        )
        self.hosts.append(host)
        return host

    def actions_for(self, game: chess.pgn.Game, number: int) -> list[Action]:
        """What the players at board `number` (0-based) do, t = 0 at the clock setup."""
        if self.habits is None:
            return actions_for_game(game, max_think=self.max_think)
        return human_actions_for_game(
            game, habits=self.habits, seed=self.seed * 1000 + number, max_think=self.max_think
        )

    async def _play(self, host: PtyHost, index: int, game: chess.pgn.Game, number: int) -> None:
        try:
            actions = self.actions_for(game, number)
            if self.game_delay > 0:
                await asyncio.sleep(self.game_delay)
            await play(host, actions, self.clock, board=index, speed=self.speed)
        except Exception as exc:
            # Logged when it happens (wait_games may never be called); stop() finds it kept.
            log.exception("emulated player %d (%s) stopped: %s", number + 1, host.link.name, exc)
            self.failures.append(exc)
            raise
        if self.truth is not None:
            board = host.boards[index]
            line = {"board": number + 1, "serial": board.serial, "presses": board.presses}
            with self.truth.open("a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")

    async def wait_games(self) -> None:
        """Until every scripted game has been played to its last move."""
        if self._players:
            await asyncio.gather(*self._players)

    def _write_registry(self) -> None:
        root = runtime_root()
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        record = {
            "pid": os.getpid(),
            "started": time.time(),
            "rundir": str(self.rundir),
            "devices": [asdict(d) for d in self.devices],
        }
        # One file per simulator, so several in one process (tests, demo) don't overwrite.
        path = root / f"{os.getpid()}-{id(self):x}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, indent=1))
        os.replace(tmp, path)
        self._registry = path

    async def stop(self) -> None:
        """Stop the players, the faults and the ports and remove the registration, whatever
        failed (a player's or port's error was logged when it happened and is in `failures`)."""
        tasks = (*self._players, *self._faults)
        for task in tasks:
            task.cancel()
        try:
            for task in tasks:
                # A failed player was logged by _play and is kept in self.failures.
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self._players.clear()
            self._faults.clear()
        finally:
            for host in self.hosts:
                await host.stop()
                if host.failure is not None:
                    self.failures.append(host.failure)
            self.hosts.clear()
            if self._registry is not None:
                with contextlib.suppress(FileNotFoundError):
                    self._registry.unlink()
                self._registry = None
            with contextlib.suppress(OSError):
                self.rundir.rmdir()  # only if empty: never remove what we did not create

    async def __aenter__(self) -> Simulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


__all__ = [
    "FIRST_SERIAL",
    "STALE_PREFIX",
    "DeviceInfo",
    "PowerLoss",
    "Simulator",
    "clean_stale_runs",
    "list_running",
    "load_games",
    "run_folder_prefix",
    "runtime_root",
]
