"""Driver for DGT boards in bus mode: many serial boards chained on one port.

Discovery pings known addresses, then alternates IGNORE_NEXT_BUS_PING to every board
found with a broadcast ping until no new board answers. In play it polls SEND_CHANGES
round robin; after a bad checksum it asks REPEAT_CHANGES (resending SEND_CHANGES would
lose the changes); after lost data it reads SEND_FROM_START and places itself in the
log; now and then it checks its idea of the board against a dump.

A board that rebooted (a power glitch, a watchdog reset) lost its change buffer, and
what changed while it was off is in no change list: after polls it did not answer, and
whenever a periodic dump differs from the changes, the driver reads the board again from
its log (SEND_FROM_START, where the reboot's POWERUP and piece dump are an anchor).

One board's failure never stops another: a software error while serving one board is
logged once with its traceback, reported (`DriverFault`, the board lost), and that board
is retried with backoff while the line goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from boards.dgt.bus import (
    MAX_ADDRESS,
    BusChecksumError,
    BusReply,
    BusRequest,
    serial_from_address,
)
from boards.dgt.codes import BusCommand, BusReplyId
from boards.dgt.decoder import BusItem, BusStreamDecoder
from boards.dgt.eeprom import decode_events
from boards.driver_events import (
    BoardConnected,
    BoardHealth,
    BoardInfo,
    BoardLost,
    ClockStamped,
    DriverFault,
    Emit,
    LogGap,
    LogRecovered,
)
from boards.drivers.link import Link, LinkError, Opener, open_serial
from boards.drivers.session import LinkDriver
from boards.drivers.supervise import FAULT_BACKOFF
from boards.from_messages import BoardStream
from boards.position import BoardPosition
from boards.recovery import (
    KnownBoard,
    RecoveryPlan,
    nothing_played,
    plan,
    unlogged_since_reboot,
    with_reading_after_reboot,
)
from clocks.reading import ClockReading, decode_bwtime
from clocks.timesource import MonotonicTimeSource

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BusSettings:
    reply_timeout: float = 0.08  # boards answer within ms, 20 ms while writing EEPROM
    ping_window: float = 1.2  # broadcast ping answers come at random within 1.1 s
    discovery_rounds: int = 20
    clock_every: float = 1.0  # ask each board's clock this often
    verify_every: int = 40  # every N polls of a board, compare with a board dump
    lost_after_missed: int = 3
    retry_lost_every: float = 2.0
    # Just lost (a power glitch reboots a board in a few seconds): look more often at
    # first, then every `retry_lost_every` (each try costs an unanswered poll's timeout).
    retry_lost_soon: float = 0.25
    retry_soon_for: float = 10.0
    health_every: float = 5.0
    rediscover_every: float = 60.0  # look for boards added to the line (polling pauses ~1 s)
    empty_line_retry: float = 1.0  # no board found yet: look again this often
    min_cycle: float = 0.05  # don't spin faster than this when the line answers instantly
    backoff: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0)


@dataclass
class BusBoard:
    """What the driver knows about one board on the line."""

    address: int
    info: BoardInfo | None = None
    stream: BoardStream = field(init=False)
    last_seen: float | None = None
    missed: int = 0
    bad_checksums: int = 0
    polls: int = 0
    lost: bool = False
    lost_at: float | None = None
    lost_real: float | None = None  # loop time of the loss
    last_clock_ask: float = float("-inf")
    last_retry: float = float("-inf")
    resyncs: int = 0
    rereads: int = 0  # read again from its log (a reboot, a dump that disagreed)
    late: int = 0  # changes that came after their poll had timed out, read all the same
    connecting: bool = False  # its log is being read: a late change list is in that read
    verify_due: bool = False  # a poll went unanswered: compare with a dump once one comes
    faults: int = 0  # software errors in a row while serving it
    fault_at: float = float("-inf")  # loop time of the last one
    retry_after: float = 0.0  # seconds between retries while faulted (0: the default)

    def __post_init__(self) -> None:
        self.stream = BoardStream(self.name)

    @property
    def name(self) -> str:
        return serial_from_address(self.address)

    @property
    def position(self) -> BoardPosition | None:
        return self.stream.position


def _spread(address: int) -> float:
    """A fraction in [0, 1) that spreads consecutive addresses evenly (golden ratio)."""
    return (address * 0.6180339887) % 1.0


async def _get_within(queue: asyncio.Queue[BusItem], seconds: float) -> BusItem:
    """The next item, or TimeoutError. `asyncio.timeout`, not `wait_for`: in a busy polling
    loop, Python 3.11's wait_for can swallow a cancellation that races with a reply,
    and the driver would then never stop."""
    async with asyncio.timeout(seconds):
        return await queue.get()


class BusDriver(LinkDriver):
    """Finds and follows every board on one bus port until `stop()`."""

    def __init__(
        self,
        port: str,
        emit: Emit,
        *,
        time_source: MonotonicTimeSource | None = None,
        opener: Opener = open_serial,
        settings: BusSettings | None = None,
        addresses: Iterable[int] = (),
        known: Iterable[KnownBoard] = (),
    ) -> None:
        self.settings = settings or BusSettings()
        super().__init__(
            port, emit, time_source=time_source, opener=opener, backoff=self.settings.backoff
        )
        wanted = list(addresses)
        bad = [a for a in wanted if not 0 < a <= MAX_ADDRESS]
        if bad:
            raise ValueError(
                f"bus addresses are 1..{MAX_ADDRESS} (14 bits), not {bad[0]}: "
                "use the address the board answers to (`boardwire boards`)"
            )
        self.boards: dict[int, BusBoard] = {a: BusBoard(a) for a in wanted}
        # Boards a previous run followed: their first connection recovers from their log.
        # Bus boards are named by their address; a name that is none is not ours.
        self._known: dict[int, KnownBoard] = {}
        for k in known:
            if k.serial.isdigit() and 0 < int(k.serial) <= MAX_ADDRESS:
                self._known[int(k.serial)] = k
            else:
                log.warning("bus %s: %r is no bus address; its log is not read", port, k.serial)
        self.last_cycle: float | None = None  # seconds the last full poll cycle took
        self.cycles = 0
        self._decoder = BusStreamDecoder()
        self._queue: asyncio.Queue[BusItem] = asyncio.Queue()
        self._last_health = float("-inf")
        self._last_discovery = float("-inf")
        self.discovered = asyncio.Event()

    @property
    def dropped_bytes(self) -> int:
        return self._decoder.dropped

    retry_on = (LinkError,)

    @property
    def describe(self) -> str:
        return f"bus driver on {self.port}"

    def _failed(self, exc: Exception) -> bool:
        log.info("bus on %s: %s", self.port, exc)
        self._lose_all(str(exc))
        return False

    def _faulted(self, exc: Exception, error: str) -> None:
        """A software error ended the whole line's session: every board on it is told."""
        now = self._time_source.now()
        for board in self.boards.values():
            self._emit(DriverFault(now, board.name, self.port, error))
        self._lose_all(f"software error in the bus driver ({error}); reconnecting")

    def _board_fault(self, board: BusBoard, exc: Exception) -> None:
        """A software error while serving one board: that board is lost and retried with
        backoff; the others go on. Called while handling `exc`."""
        error = self.log_fault(exc, f"bus driver on {self.port}, board {board.name}")
        real = asyncio.get_running_loop().time()
        board.faults = 1 if real - board.fault_at > 120.0 else board.faults + 1
        board.fault_at = real
        board.retry_after = FAULT_BACKOFF[min(board.faults, len(FAULT_BACKOFF)) - 1]
        board.last_retry = real
        self._emit(DriverFault(self._time_source.now(), board.name, self.port, error))
        if board.info is not None and not board.lost:
            self._lose(board, f"software error in the driver ({error}); retrying")
        board.lost = True

    async def _stopped(self) -> None:
        self._lose_all("stopped")

    def _lose_all(self, reason: str) -> None:
        for board in self.boards.values():
            self._lose(board, reason)

    def _lose(self, board: BusBoard, reason: str) -> None:
        if board.info is None or board.lost:
            return
        board.lost = True
        board.lost_at = self._time_source.now()
        board.lost_real = asyncio.get_running_loop().time()
        log.info("board %s on bus %s lost: %s", board.name, self.port, reason)
        self._emit(BoardLost(board.lost_at, board.name, reason))

    # -- line access ---------------------------------------------------------------------------

    def _new_connection(self) -> None:
        self._decoder = BusStreamDecoder()
        self._queue = asyncio.Queue()

    async def _read_loop(self, link: Link) -> None:
        while True:
            data = await link.read()
            for item in self._decoder.feed(data):
                self._queue.put_nowait(item)

    def _send(self, command: BusCommand, address: int) -> None:
        self._write(BusRequest(command, address).encode())

    def _drain(self) -> None:
        while not self._queue.empty():
            self._late(self._queue.get_nowait())

    def _late(self, item: BusItem) -> None:
        """A reply that came after its request had timed out (a busy machine answers the
        loop late). A board empties its change buffer as it sends it, so a late change list
        is read, not dropped: the line is first in, first out, so it still comes before
        anything the board says next. Other late replies (pings, dumps, clock readings)
        say nothing that is not asked again."""
        if not isinstance(item, BusReply) or item.reply_id != BusReplyId.UPDATE:
            return
        board = self.boards.get(item.address)
        if board is None or board.info is None or board.lost or board.connecting:
            return  # a (re)connection reads the board's log: that holds these changes
        board.late += 1
        self._emit_all(board.stream.feed_bus(self._time_source.now(), item))

    async def _transact(
        self, command: BusCommand, address: int, expect: BusReplyId
    ) -> BusReply | BusChecksumError | None:
        """One request to one board; its reply, a checksum error, or None on timeout."""
        self._drain()
        self._send(command, address)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.reply_timeout
        graced = False
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            try:
                item = await _get_within(self._queue, remaining)
            except TimeoutError:
                if not graced and loop.time() - deadline > self.settings.reply_timeout / 2:
                    # Woken late (a busy loop or machine): the answer may be in the port's
                    # buffer, unread. Not a missed poll: wait once more. Three such false
                    # misses in a row would count a healthy board as lost.
                    graced = True
                    deadline = loop.time() + self.settings.reply_timeout
                    continue
                return None
            if isinstance(item, BusChecksumError):
                if item.address == address:
                    return item
                continue
            if item.address == address and item.reply_id == expect:
                return item
            self._late(item)  # a late answer to an earlier request

    async def _collect_pings(self, window: float) -> tuple[set[int], int]:
        """Addresses that answered a ping within `window`, and how many frames were garbled."""
        found: set[int] = set()
        garbled = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + window
        while (remaining := deadline - loop.time()) > 0:
            try:
                item = await _get_within(self._queue, remaining)
            except TimeoutError:
                break
            if isinstance(item, BusChecksumError):
                garbled += 1
            elif item.reply_id == BusReplyId.PING:
                found.add(item.address)
            else:
                self._late(item)
        return found, garbled

    # -- discovery ---------------------------------------------------------------------------------

    async def discover(self) -> list[int]:
        """Every address that answers on the line (known ones first, then broadcast rounds)."""
        found: set[int] = set()
        for address in list(self.boards):
            reply = await self._transact(BusCommand.PING, address, BusReplyId.PING)
            if isinstance(reply, BusReply):
                found.add(address)
        dropped_before = self._decoder.dropped
        for _ in range(self.settings.discovery_rounds):
            for address in sorted(found):
                await self._transact(BusCommand.IGNORE_NEXT_BUS_PING, address, BusReplyId.PING)
            self._drain()
            self._send(BusCommand.PING, 0)
            answered, garbled = await self._collect_pings(self.settings.ping_window)
            new = answered - found
            found |= answered
            collided = garbled > 0 or self._decoder.dropped > dropped_before
            dropped_before = self._decoder.dropped
            if not new and not collided:
                break
        return sorted(found)

    async def _connect_board(self, board: BusBoard, reconnect: bool) -> bool:
        board.connecting = True
        try:
            return await self._connect(board, reconnect)
        finally:
            board.connecting = False

    async def _connect(self, board: BusBoard, reconnect: bool) -> bool:
        now = self._time_source.now()
        version = await self._transact(BusCommand.SEND_VERSION, board.address, BusReplyId.VERSION)
        if not isinstance(version, BusReply) or len(version.data) < 2:
            return False
        known = self._known.get(board.address) if board.info is None else None
        how = plan(reconnect, board.position, board.stream.recent.as_tuple(), known)
        reconnect = how.reconnect
        # Clear the change log first: what the log read below holds must not come again
        # (changes that arrive twice are harmless, a square change being absolute).
        await self._transact(BusCommand.SEND_CHANGES, board.address, BusReplyId.UPDATE)
        recovered, gap = None, None
        if how.outage:
            # The clock first: a move completed while the board had no power is in no
            # log, and its time is on the display only until the opponent presses.
            shown = await self._transact(BusCommand.SEND_CLK, board.address, BusReplyId.BWTIME)
            recovered, gap = await self._read_log(board, how)
            reading = (
                decode_bwtime(shown.data)
                if isinstance(shown, BusReply) and len(shown.data) == 7
                else None
            )
            # Taken before the log: it may be older than a press logged since the reboot.
            if (
                recovered is not None
                and isinstance(reading, ClockReading)
                and unlogged_since_reboot(recovered)
            ):
                recovered = with_reading_after_reboot(recovered, reading)
        dump = await self._transact(BusCommand.SEND_BRD, board.address, BusReplyId.BRD_DUMP)
        if not isinstance(dump, BusReply) or len(dump.data) != 64:
            return False
        clock = await self._transact(BusCommand.SEND_CLK, board.address, BusReplyId.BWTIME)
        clock_msg = (
            decode_bwtime(clock.data)
            if isinstance(clock, BusReply) and len(clock.data) == 7
            else None
        )
        board.info = BoardInfo(
            port=self.port,
            serial=board.name,
            version=(version.data[0], version.data[1]),
            mode="bus",
            bus_address=board.address,
            clock_present=None if clock_msg is None else isinstance(clock_msg, ClockReading),
        )
        # Only now: a board that fails before this point is read again, log included.
        self._known.pop(board.address, None)
        board.lost = False
        board.missed = 0
        board.last_seen = now
        log.info(
            "board %s on bus %s %s",
            board.name,
            self.port,
            "reconnected" if reconnect else "connected",
        )
        self._emit(BoardConnected(now, board.name, board.info, reconnect=reconnect))
        if gap is not None:
            log.warning(
                "board %s on bus %s: %s; going on from the board as it stands",
                board.name,
                self.port,
                gap,
            )
            self._emit(LogGap(now, board.name, self.port, gap))
        if recovered is not None:
            board.stream.position = recovered.final
            self._emit(recovered)
        else:
            board.stream.position = how.position
        board.stream.recent.clear()
        self._emit_all(board.stream.feed_bus(now, dump))
        # Boards found together would all want their clock (and their check against a dump)
        # in the same cycle, once a second: one cycle in a few would take most of a second
        # at 9600 baud and every change waiting behind it would show that much later.
        # Spread the boards over the second instead.
        board.last_clock_ask = asyncio.get_running_loop().time() - _spread(board.address) * (
            self.settings.clock_every
        )
        if isinstance(clock, BusReply):
            self._emit_all(board.stream.feed_bus(now, clock))
        return True

    async def _read_log(
        self, board: BusBoard, how: RecoveryPlan
    ) -> tuple[LogRecovered | None, str | None]:
        """Everything the board logged since its start tag, as one `LogRecovered`; at a
        first start mid-round only when the board no longer shows the start position.
        With it, what went wrong filling the outage (None: nothing)."""
        if how.first_start:
            shown = await self._transact(BusCommand.SEND_BRD, board.address, BusReplyId.BRD_DUMP)
            if not isinstance(shown, BusReply) or len(shown.data) != 64:
                return None, "it did not send its board to compare with the start"
            if nothing_played(BoardPosition.from_bytes(shown.data)):
                return None, None
        history = await self._transact(
            BusCommand.SEND_FROM_START, board.address, BusReplyId.FROM_START
        )
        if not isinstance(history, BusReply):
            return None, "it did not send its log (SEND_FROM_START)"
        return self._recovered(board.name, history.data, decode_events, how)

    # -- polling -----------------------------------------------------------------------------------

    async def _find_boards(self, *, port_reopened: bool = False) -> None:
        """Discover the line; read every board not yet followed (or every board, after the
        port itself was reopened: each one may have missed moves)."""
        for address in await self.discover():
            board = self.boards.setdefault(address, BusBoard(address))
            needs_reading = board.info is None or port_reopened or board.lost
            if not needs_reading:
                continue
            try:
                if not await self._connect_board(board, reconnect=board.info is not None):
                    self._lose(board, "did not answer after discovery")
            except LinkError:
                raise
            except Exception as exc:
                self._board_fault(board, exc)
        self._last_discovery = asyncio.get_running_loop().time()

    async def _work(self) -> None:
        await self._find_boards(port_reopened=True)
        self.discovered.set()
        loop = asyncio.get_running_loop()
        while not self._stopping.is_set():
            if not self.boards:
                await asyncio.sleep(self.settings.empty_line_retry)
                await self._find_boards()
                continue
            if loop.time() - self._last_discovery >= self.settings.rediscover_every:
                await self._find_boards()
            started = loop.time()
            for board in list(self.boards.values()):
                try:
                    await self._poll(board)
                except LinkError:
                    raise  # the line itself: every board's session ends
                except Exception as exc:
                    self._board_fault(board, exc)
            self.cycles += 1
            self.last_cycle = loop.time() - started
            self._report_health()
            rest = self.settings.min_cycle - (loop.time() - started)
            await asyncio.sleep(max(rest, 0))

    async def _poll(self, board: BusBoard) -> None:
        now = self._time_source.now()  # stamps events
        real = asyncio.get_running_loop().time()  # the driver's own timers
        if board.lost or board.info is None:
            s = self.settings
            recently = board.lost_real is not None and real - board.lost_real < s.retry_soon_for
            every = s.retry_lost_soon if recently else s.retry_lost_every
            every = max(every, board.retry_after)
            if real - board.last_retry >= every:
                board.last_retry = real
                ping = await self._transact(BusCommand.PING, board.address, BusReplyId.PING)
                if isinstance(ping, BusReply):
                    await self._connect_board(board, reconnect=board.info is not None)
            return
        reply = await self._transact(BusCommand.SEND_CHANGES, board.address, BusReplyId.UPDATE)
        retries = 0
        while isinstance(reply, BusChecksumError) and retries < 2:
            board.bad_checksums += 1
            retries += 1
            reply = await self._transact(
                BusCommand.REPEAT_CHANGES, board.address, BusReplyId.UPDATE
            )
        if isinstance(reply, BusChecksumError):
            board.bad_checksums += 1
            log.info(
                "board %s: changes lost to bad checksums; reading from the start tag", board.name
            )
            await self._connect_board(board, reconnect=True)
            return
        if reply is None:
            board.missed += 1
            board.verify_due = True
            if board.missed >= self.settings.lost_after_missed:
                self._lose(board, f"{board.missed} polls unanswered")
            return
        board.missed = 0
        board.polls += 1
        if real - board.fault_at > 120.0:
            board.faults, board.retry_after = 0, 0.0
        board.last_seen = now
        events = board.stream.feed_bus(now, reply)
        self._emit_all(events)
        # A lever press in the log: read the clock now rather than up to `clock_every`
        # later, so that the press confirms the move at once (the reconstructor waits
        # longer for moves it has no press for).
        pressed = any(isinstance(e, ClockStamped | LogRecovered) for e in events)
        if pressed or real - board.last_clock_ask >= self.settings.clock_every:
            board.last_clock_ask = real
            await self._ask_clock(board, now)
        if board.verify_due or (board.polls + board.address) % self.settings.verify_every == 0:
            # After polls it did not answer, the board may have rebooted (its change
            # buffer lost): compare with its dump at once, and until a dump has come.
            await self._verify(board, now)

    async def _ask_clock(self, board: BusBoard, now: float) -> None:
        reply = await self._transact(BusCommand.SEND_CLK, board.address, BusReplyId.BWTIME)
        if isinstance(reply, BusReply):
            self._emit_all(board.stream.feed_bus(now, reply))

    async def _verify(self, board: BusBoard, now: float) -> None:
        dump = await self._transact(BusCommand.SEND_BRD, board.address, BusReplyId.BRD_DUMP)
        if not isinstance(dump, BusReply) or len(dump.data) != 64:
            return
        board.verify_due = False
        if BoardPosition.from_bytes(dump.data) != board.position:
            board.resyncs += 1
            board.rereads += 1
            # Lost changes (a reboot empties the change buffer, and what changed while it
            # was off is in no list): read it again from its log, which orders them.
            log.info(
                "board %s: changes and board disagree (rebooted?); reading it from its log",
                board.name,
            )
            if not await self._connect_board(board, reconnect=True):
                self._emit_all(board.stream.feed_bus(now, dump))

    def _report_health(self) -> None:
        real = asyncio.get_running_loop().time()
        if real - self._last_health < self.settings.health_every:
            return
        self._last_health = real
        now = self._time_source.now()
        for board in self.boards.values():
            if board.info is not None:
                self._emit(
                    BoardHealth(now, board.name, board.last_seen, board.missed, board.bad_checksums)
                )

    async def probe(self) -> list[BoardInfo]:
        """Open the port once, find every board on the line, read each one, close."""
        return await self._probe_once(self._probe_work)

    async def _probe_work(self) -> list[BoardInfo]:
        infos = []
        for address in await self.discover():
            board = self.boards.setdefault(address, BusBoard(address))
            if await self._connect_board(board, reconnect=False) and board.info is not None:
                infos.append(board.info)
        return infos


__all__ = ["BusBoard", "BusDriver", "BusSettings"]
