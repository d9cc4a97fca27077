"""Argument types shared by the commands: each refuses a bad value with a message that
argparse prints under the subcommand's usage (exit 2), before anything starts."""

from __future__ import annotations

import argparse
import ipaddress
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, not {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number above zero (a speed, a duration)."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number, zero or more (a delay)."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text!r}")
    return value


def _whole(text: str, low: int, high: int, message: str) -> int:
    stripped = text.strip()
    # ASCII digits only: "²" is a digit to str.isdigit, not to int().
    if not (stripped.isascii() and stripped.isdigit()) or not low <= int(stripped[:10]) <= high:
        raise argparse.ArgumentTypeError(f"{message}, not {text!r}")
    return int(stripped)


def positive_int(text: str) -> int:
    """A whole number from 1 (a round, a board)."""
    return _whole(text, 1, 999_999_999, "must be a whole number from 1")


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argument type for a whole number from `low` to `high` (a count, a serial)."""

    def parse(text: str) -> int:
        return _whole(text, low, high, f"must be a whole number from {low} to {high}")

    return parse


def port_number(text: str) -> int:
    """A TCP port, 1-65535."""
    return _whole(text, 1, 65535, "a port is a number from 1 to 65535")


_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def listen_host(text: str) -> str:
    """An address or a host name to listen on. Never empty: an empty host listens on
    every interface, which must be asked for by name (0.0.0.0 or ::)."""
    host = text.strip()
    if not host:
        raise argparse.ArgumentTypeError(
            "an empty host would listen on every interface: give an address "
            "(127.0.0.1: this computer only; 0.0.0.0: every interface)"
        )
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return str(ipaddress.ip_address(bare)) if "%" not in bare else bare
    except ValueError:
        pass
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise argparse.ArgumentTypeError(
            f"not an address or a host name: {text[:80]!r} (a name is made of parts of 1 to "
            "63 letters, digits or hyphens, separated by dots)"
        )
    return host


def exposure(sockets: Sequence[Any]) -> str:
    """Who can reach a server listening on these addresses (as `getsockname` gives them)."""
    parts: list[str] = []
    for address in sockets:
        text = str(address[0]) if isinstance(address, tuple) else str(address)
        try:
            ip = ipaddress.ip_address(text.split("%")[0])
        except ValueError:
            parts.append(f"{text}: (not an IP address)")
            continue
        if ip.is_unspecified:
            what = (
                "every IPv4 interface of this computer: anyone on its networks can connect"
                if ip.version == 4
                else "every interface of this computer (IPv6, and IPv4 too on most "
                "systems): anyone on its networks can connect"
            )
        elif ip.is_loopback:
            what = "this computer only"
        else:
            what = f"the interface with address {ip}: anyone on its network can connect"
        item = f"{ip}: {what}"
        if item not in parts:
            parts.append(item)
    return "; ".join(parts) if parts else "nothing"


def serial_port_problem(path: str) -> str | None:
    """Why `path` cannot be a board's serial port (None: it can be opened as a terminal).

    Checked once before a driver starts, since a driver retries a port that fails forever
    (a board unplugged for a moment must come back), which would hide a typo.
    """
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"no such port: {path} (`boardwire boards` lists the boards it finds)"
    except PermissionError:
        return f"{path}: permission denied"
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if not stat.S_ISCHR(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a regular file"
        hint = "; to run a recorded capture use `boardwire replay`" if stat.S_ISREG(mode) else ""
        return f"{path} is not a serial port ({kind}){hint}"
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except PermissionError:
        return f"{path}: permission denied (on Linux, add yourself to the 'dialout' group)"
    except OSError as exc:
        return f"{path}: cannot open it: {exc.strerror or exc}"
    try:
        if not os.isatty(fd):
            return f"{path} is not a serial port (a device that is not a terminal)"
    finally:
        os.close(fd)
    return None


__all__ = [
    "exposure",
    "listen_host",
    "non_negative_float",
    "port_number",
    "positive_float",
    "positive_int",
    "serial_port_problem",
    "whole_number",
]


def add_emulation_arguments(parser: argparse.ArgumentParser) -> None:
    """`--games` and `--firmware`: what `--sim`'s emulated players and boards are (serve,
    station)."""
    parser.add_argument(
        "--games", type=Path, help="with --sim: PGN games the emulated players play"
    )
    parser.add_argument(
        "--firmware",
        metavar="NAME[,NAME...]",
        help="with --sim: the emulated boards' firmware variant(s), given to the boards in "
        "turn (see `boardwire sim --help`; default classic)",
    )


def emulation_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with `--games` and `--firmware` (None: nothing): they need `--sim`,
    a known firmware and games that load."""
    games, firmware = getattr(args, "games", None), getattr(args, "firmware", None)
    if games is None and firmware is None:
        return None
    if not args.sim:
        what = "--games" if firmware is None else "--firmware"
        return f"{what} needs --sim (the emulated players and boards)"
    from boardsim.firmware import firmware_list  # only the CLI layer imports the simulator
    from boardsim.sim import load_games

    if firmware is not None:
        try:
            firmware_list(firmware)
        except ValueError as exc:
            return f"--firmware: {exc}"
    if games is not None:
        try:
            load_games(games)
        except ValueError as exc:  # unreadable, not UTF-8, no games, a game that does not parse
            return f"--games: {exc}"
    return None
