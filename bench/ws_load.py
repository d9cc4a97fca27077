"""Websocket load for the fan-out benchmarks: many cheap spectators in worker processes.

Each worker process opens `count` websockets to 127.0.0.1 (spread over the given ports),
optionally subscribes to the event, and counts the text messages it receives by reading
frame headers only (no JSON, no websocket library, no asyncio: a spectator must cost the
benchmark less than the server under test). It reads its sockets every `every` seconds,
many frames a read; the last frame is therefore seen up to that much late (5 ms by
default). `sample` of its sockets also note, for every message, its sequence number and
the moment it was read (time.monotonic(), the same clock in every process of the
machine), for latencies: a latency probe runs as its own worker with `every` 0.

It talks to the benchmark over its stdin/stdout, one JSON object a line:

    -> {"ready": n}                  every socket open (and its snapshot in, if subscribed)
    -> {"done": ..., "count": total, "last": t, "samples": [[seq, t], ...]}
                                     each socket has `expect` messages (or each sampled
                                     one has read sequence number `until`), or `deadline`
                                     seconds passed since the first one arrived
    <- {"expect": n} or {"until": seq}   another round (or, during one, its new goal);
                                         {} ends

    python bench/ws_load.py --ports 8080[,8081] --count 5000 --expect 200 [--subscribe]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import resource
import selectors
import socket
import struct
import sys
import time
from typing import Any

__all__ = ["LoadProcess", "main"]

SUBSCRIBE = json.dumps({"type": "subscribe", "scope": "event"}).encode()


def _masked(payload: bytes, first: int = 0x81) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return struct.pack("!BB", first, 0x80 | len(payload)) + mask + body


class Spectator:
    """One websocket: the handshake, then a count of the text frames (the first one, a
    snapshot, not counted when subscribed)."""

    def __init__(self, sock: socket.socket, subscribe: bool, sample: bool) -> None:
        self.sock = sock
        self.subscribe = subscribe
        self.sample = sample
        self.buf = bytearray()
        self.stage = 0  # 0: handshake, 1: waiting for the snapshot, 2: counting
        self.count = 0
        self.seen = 0  # the highest sequence number read (sampled sockets only)
        self.dead = False

    def feed(self, data: bytes, run: Run) -> None:
        buf = self.buf
        buf += data
        if self.stage == 0:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self.dead = True
                return
            del buf[: end + 4]
            if self.subscribe:
                self.sock.send(_masked(SUBSCRIBE))
                self.stage = 1
            else:
                self.stage = 2
        i, n = 0, len(buf)
        texts = 0
        while i + 2 <= n:
            first, length = buf[i], buf[i + 1] & 0x7F
            at = i + 2
            if length == 126:
                if at + 2 > n:
                    break
                length = (buf[at] << 8) | buf[at + 1]
                at += 2
            elif length == 127:
                if at + 8 > n:
                    break
                (length,) = struct.unpack_from("!Q", buf, at)
                at += 8
            if at + length > n:
                break
            op = first & 0x0F
            if op == 0x1:
                if self.stage == 1:
                    self.stage = 2
                else:
                    texts += 1
                    if self.sample:
                        seq = json.loads(bytes(buf[at : at + length])).get("seq")
                        if isinstance(seq, int):
                            run.samples.append((seq, time.monotonic()))
                            self.seen = max(self.seen, seq)
            elif op == 0x9:  # a ping: the server closes a client that does not answer
                self.sock.send(_masked(bytes(buf[at : at + length]), 0x8A))
            i = at + length
        if i:
            del buf[:i]
        if texts:
            before = self.count
            self.count += texts
            run.received(texts, before < run.expect <= self.count)


class Run:
    """One worker's counts."""

    def __init__(self, expect: int) -> None:
        self.expect = expect
        self.total = 0
        self.complete = 0
        self.first = 0.0
        self.last = 0.0
        self.samples: list[tuple[int, float]] = []

    def received(self, n: int, completed: bool) -> None:
        now = time.monotonic()
        if not self.first:
            self.first = now
        self.last = now
        self.total += n
        self.complete += completed


def _serve(args: argparse.Namespace) -> None:
    ports = [int(p) for p in args.ports.split(",")]
    run = Run(args.expect)
    sel = selectors.DefaultSelector()
    spectators: list[Spectator] = []
    begun = time.monotonic()
    for i in range(args.count):
        port = ports[i % len(ports)]
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.setblocking(False)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.send(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        spectator = Spectator(sock, args.subscribe, i < args.sample)
        spectators.append(spectator)
        sel.register(sock, selectors.EVENT_READ, spectator)
        if args.rate:  # the server admits so many subscribes a second from everybody
            due = begun + (i + 1) / args.rate
            while time.monotonic() < due:
                _pump(sel, run, max(0.0, min(0.01, due - time.monotonic())))
        elif i % 100 == 99:
            _pump(sel, run, 0.0)  # answers read as they come: the server's buffers stay small

    def ready() -> int:
        return sum(1 for s in spectators if s.stage == 2 and not s.dead)

    deadline = time.monotonic() + args.deadline
    while ready() + sum(s.dead for s in spectators) < args.count:
        if time.monotonic() > deadline:
            break
        _pump(sel, run, 0.05)
    joined = ready()
    _say({"ready": joined, "failed": args.count - joined})
    expect = args.expect
    until = 0
    # A command line on stdin during a round changes its goal ({"expect": n}, {"until":
    # seq}); {} ends the round. Between rounds the next command starts one; {} ends all.
    sel.register(sys.stdin, selectors.EVENT_READ, None)
    while True:
        run = Run(expect)
        for s in spectators:
            s.count = 0
        sampled = [s for s in spectators if s.sample and not s.dead]
        started = time.monotonic()
        ended = False
        while True:
            if until:
                if all(s.seen >= until for s in sampled):
                    break
            elif run.complete >= joined:
                break
            if time.monotonic() - (run.first or started) > args.deadline:
                break
            command = _pump(sel, run, 0.1)
            if command is not None:
                if "expect" in command:
                    expect, until = int(command["expect"]), 0
                    run.expect = expect
                elif "until" in command:
                    until = int(command["until"])
                else:
                    ended = True
                    break
            if args.every:
                time.sleep(args.every)
        _say(
            {
                "done": all(s.seen >= until for s in sampled) if until else run.complete >= joined,
                "count": run.total,
                "complete": run.complete,
                "first": run.first,
                "last": run.last,
                "samples": run.samples,
                "alive": sum(not s.dead for s in spectators),
            }
        )
        if ended:
            break
        command = json.loads(sys.stdin.readline() or "{}")
        if "expect" in command:
            expect, until = int(command["expect"]), 0
        elif "until" in command:
            expect, until = 1 << 60, int(command["until"])
        else:
            break
    for s in spectators:
        s.sock.close()


def _pump(sel: selectors.BaseSelector, run: Run, timeout: float) -> dict[str, Any] | None:
    command = None
    for key, _ in sel.select(timeout):
        if key.data is None:  # a command on stdin
            command = json.loads(sys.stdin.readline() or "{}")
            continue
        spectator: Spectator = key.data
        try:
            data = spectator.sock.recv(1 << 18)
        except (BlockingIOError, InterruptedError):
            continue
        except OSError:
            data = b""
        if not data:
            spectator.dead = True
            sel.unregister(spectator.sock)
            continue
        spectator.feed(data, run)
    return command


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


class LoadProcess:
    """A worker process, seen from the benchmark."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(
        cls,
        ports: list[int],
        count: int,
        expect: int,
        *,
        subscribe: bool,
        sample: int = 0,
        deadline: float = 60.0,
        every: float = 0.005,
        rate: float = 0.0,
    ) -> LoadProcess:
        args = [
            sys.executable,
            os.path.abspath(__file__),
            "--ports",
            ",".join(map(str, ports)),
            "--count",
            str(count),
            "--expect",
            str(expect),
            "--sample",
            str(sample),
            "--deadline",
            str(deadline),
            "--every",
            str(every),
            "--rate",
            str(rate),
        ]
        if subscribe:
            args.append("--subscribe")
        proc = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 26
        )
        return cls(proc)

    async def line(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        raw = await self.proc.stdout.readline()
        if not raw:
            raise RuntimeError("a load process ended early")
        message: dict[str, Any] = json.loads(raw)
        return message

    async def again(self, **command: int) -> None:
        """Start the next round: {"expect": n} or {"until": seq}."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command).encode() + b"\n")
        await self.proc.stdin.drain()

    async def stop(self) -> None:
        if self.proc.returncode is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write(b"{}\n")
                await asyncio.wait_for(self.proc.wait(), 10)
            except (TimeoutError, ConnectionError):
                self.proc.kill()
                await self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ports", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--expect", type=int, required=True)
    parser.add_argument("--subscribe", action="store_true")
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--deadline", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=0.005, help="seconds between reads")
    parser.add_argument("--rate", type=float, default=0.0, help="connections a second (0: all)")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.count + 256)), hard))
    _serve(args)


if __name__ == "__main__":
    main()
