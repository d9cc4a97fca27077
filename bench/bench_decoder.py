"""Decoder throughput: messages per second through the incremental decoders.

Prints figures only. The reference measured in the same run is a plain loop that slices
the same frames out of the stream by their known lengths (no validation, no objects): the
ratio says what the decoder's safety (resync, length and payload checks, typed messages)
costs over bare framing.
"""

from __future__ import annotations

import random
import time

import chess

from boards.dgt.bus import BusReply
from boards.dgt.codes import BusReplyId
from boards.dgt.decoder import BoardStreamDecoder, BusStreamDecoder
from boards.dgt.messages import BoardDump, BWTime, FieldUpdate, encode_message
from boards.position import BoardPosition

LINE_BYTES_PER_SECOND = 960  # 9600 baud, 10 bits per byte (8N1)


def _stream(n: int, rng: random.Random) -> tuple[bytes, int]:
    start = BoardPosition.from_fen(chess.STARTING_FEN)
    frames = []
    for i in range(n):
        r = rng.random()
        if r < 0.8:
            frames.append(encode_message(FieldUpdate(rng.randrange(64), rng.randrange(13))))
        elif r < 0.97:
            frames.append(encode_message(BWTime(bytes([1, 0x29, 0x58, 1, 0x30, i % 10, 1]))))
        else:
            frames.append(encode_message(BoardDump(start)))
    return b"".join(frames), n


def _bare_framing(data: bytes) -> int:
    count = 0
    i = 0
    while i < len(data):
        total = (data[i + 1] << 7) | data[i + 2]
        _ = data[i + 3 : i + total]
        i += total
        count += 1
    return count


def _time(fn, *args) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    rng = random.Random(7)
    data, n = _stream(200_000, rng)
    chunks = [data[i : i + 64] for i in range(0, len(data), 64)]

    def decode_all() -> None:
        d = BoardStreamDecoder()
        count = 0
        for c in chunks:
            count += len(d.feed(c))
        assert count == n

    def decode_one_chunk() -> None:
        assert len(BoardStreamDecoder().feed(data)) == n

    t_dec = _time(decode_all)
    t_one = _time(decode_one_chunk)
    t_ref = _time(_bare_framing, data)
    line_rate = n / (len(data) / LINE_BYTES_PER_SECOND)
    print(f"single-board stream: {n} messages, {len(data)} bytes, in 64-byte chunks")
    print(f"  decoder:         {n / t_dec:12,.0f} messages/s  ({len(data) / t_dec / 1e6:.1f} MB/s)")
    print(f"  one 1.5 MB chunk: {n / t_one:11,.0f} messages/s  (a whole capture file at once)")
    print(f"  bare framing:    {n / t_ref:12,.0f} messages/s  (reference, same run)")
    print(f"  ratio decoder/bare: {t_dec / t_ref:.1f}x slower")
    print(f"  9600-baud line:  {line_rate:12,.0f} messages/s for the same bytes")
    print(f"  headroom over one line: {(n / t_dec) / line_rate:,.0f}x")

    garbage = bytes(rng.randrange(256) for _ in range(len(data) // 4))
    noisy = bytearray()
    for i in range(0, len(data), 4096):
        noisy += data[i : i + 4096] + garbage[i // 4 : i // 4 + 64]

    def decode_noisy() -> None:
        d = BoardStreamDecoder()
        for i in range(0, len(noisy), 64):
            d.feed(bytes(noisy[i : i + 64]))

    t_noisy = _time(decode_noisy)
    print(f"  with 1.5% garbage: {len(noisy) / t_noisy / 1e6:.1f} MB/s (resyncing)")

    replies = b"".join(
        BusReply(
            BusReplyId.UPDATE, rng.randrange(1, 16000), bytes([0x41, rng.randrange(64)])
        ).encode()
        for _ in range(100_000)
    )

    def decode_bus() -> None:
        d = BusStreamDecoder()
        for i in range(0, len(replies), 64):
            d.feed(replies[i : i + 64])

    t_bus = _time(decode_bus)
    print(
        f"bus replies: {100_000 / t_bus:12,.0f} replies/s (9600-baud line: {LINE_BYTES_PER_SECOND / 8:,.0f}/s)"
    )


if __name__ == "__main__":
    main()
