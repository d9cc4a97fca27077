"""The simulator's firmware variants and power faults against byte strings written by hand
from the DGT protocol (as in test_sim_wire_golden.py): what each variant logs at power-up,
between records, after a download and after a watchdog reset; what a board that lost its
power sends and logs; the bus address of a serial above 16383. The product's decoders are
checked against the same bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from boards.dgt.bus import BusReply, BusRequest
from boards.dgt.codes import BusCommand, Command
from boards.dgt.codes import BusReplyId as ProductBusReplyId
from boards.dgt.decoder import BoardStreamDecoder, BusStreamDecoder, SingleCommand
from boards.dgt.eeprom import PieceChange, Tag, TagEvent, decode_ring
from boards.dgt.messages import BusAddress, EEMoves
from boards.position import BoardPosition
from boardsim.board import EmulatedBoard, Mode, UpdateMode
from boardsim.eeprom_log import START_CODES
from boardsim.firmware import FIRMWARE_NAMES, firmware_list, firmware_named
from tests.support.paths import ROOT


def h(text: str) -> bytes:
    return bytes.fromhex(text)


# Two kings: black on e8 (index 04, code 0B), white on e1 (index 3C, code 05).
KINGS = BoardPosition.empty().with_piece(4, 0x0B).with_piece(60, 0x05)
KINGS_LOG = "4B 04 45 3C"  # the pieces in index order
# The start position's pieces as a power-up writes them, typed from the piece codes.
START_PIECES = (
    "48 00 49 01 4A 02 4C 03 4B 04 4A 05 49 06 48 07 "
    "47 08 47 09 47 0A 47 0B 47 0C 47 0D 47 0E 47 0F "
    "41 30 41 31 41 32 41 33 41 34 41 35 41 36 41 37 "
    "42 38 43 39 44 3A 46 3B 45 3C 44 3D 43 3E 42 3F"
)


def written(board: EmulatedBoard) -> bytes:
    """Every byte the board has written to its log, oldest first."""
    return board.eeprom.since(0)


def single(board: EmulatedBoard, code: int, t: float) -> bytes:
    return board.handle(SingleCommand(code), t)


@pytest.mark.parametrize(
    ("firmware", "log"),
    [
        ("classic", f"7F 7F 7F 6A {START_PIECES} 6F"),
        ("no-beginpos", f"7F 7F 7F 6A {START_PIECES}"),
        ("start-tag", f"7F 7F 7F 6A 7B {START_PIECES}"),
        ("downloaded", f"7F 7F 7F 6A {START_PIECES} 6F"),
        ("watchdog", f"7F 7F 7F 6A {START_PIECES} 6F"),
    ],
)
def test_power_up_log_of_each_variant(firmware: str, log: str) -> None:
    board = EmulatedBoard("10001", firmware=firmware, position=BoardPosition(START_CODES))
    assert written(board) == h(log)


def test_nop_padding_goes_between_records_and_a_replaced_record_gets_none() -> None:
    board = EmulatedBoard("10001", firmware="nop-padding", position=KINGS)
    # Before each record it appends: 7F, then 00, then 7F 00, then 00 00 7F, round again.
    assert written(board) == h("7F 7F 7F  7F 6A  00 4B 04  7F 00 45 3C")
    board.set_square(4, 0, 5.0)  # the black king lifted...
    board.set_square(4, 0x0B, 5.5)  # ...and put back: one record, rewritten in place
    board.set_square(60, 0, 9.0)
    assert written(board) == h("7F 7F 7F 7F 6A 00 4B 04 7F 00 45 3C  00 00 7F 4B 04  7F 40 3C")
    events, bad = decode_ring(board.eeprom.dump())
    assert bad == 0
    assert events == [
        TagEvent(Tag.POWERUP),
        PieceChange(4, 0x0B),
        PieceChange(60, 5),
        PieceChange(4, 0x0B),
        PieceChange(60, 0),
    ]


def test_downloaded_tag_follows_every_log_download() -> None:
    board = EmulatedBoard("10001", firmware="downloaded", position=KINGS, eeprom_size=16)
    first = single(board, Command.SEND_EE_MOVES, 1.0)
    second = single(board, Command.SEND_EE_MOVES, 2.0)
    assert first == b"" and second == b""  # paced: it leaves through tick()
    frames = board.tick(1.0 + 40 / 960)
    # 8F, total length 20 (3 + the 16-byte ring + EOF), the ring oldest first (never-
    # written bytes read 00), EOF 6B; then the second download shows the 6E the first left.
    assert frames == h(
        "8F 00 14 " + "00 " * 8 + "7F 7F 7F 6A 4B 04 45 3C 6B "
        "8F 00 14 " + "00 " * 7 + "7F 7F 7F 6A 4B 04 45 3C 6E 6B"
    )
    assert written(board) == h("7F 7F 7F 6A 4B 04 45 3C 6E 6E")
    [one, two] = BoardStreamDecoder().feed(frames)
    assert isinstance(one, EEMoves) and isinstance(two, EEMoves)
    assert two.events()[-1] == TagEvent(Tag.DOWNLOADED)


def test_a_watchdog_reset_logs_watchdog_and_the_pieces_and_drops_update_mode() -> None:
    board = EmulatedBoard("10001", position=KINGS)
    single(board, Command.SEND_UPDATE_NICE, 1.0)
    assert board.mode is Mode.SINGLE and board.update_mode is UpdateMode.UPDATE_NICE
    board.watchdog_reset(5.0)
    assert written(board) == h(f"7F 7F 7F 6A {KINGS_LOG}  7C {KINGS_LOG}")
    assert board.mode is Mode.BUS and board.update_mode is UpdateMode.IDLE
    assert single(board, Command.RETURN_SERIALNR, 5.1) == b""  # restarting
    # Then it answers a serial poll (and goes single, idle): no field updates any more.
    assert single(board, Command.RETURN_SERIALNR, 5.4) == h("91 00 08 31 30 30 30 31")
    assert board.set_square(4, 0, 6.0) == b""


def test_the_watchdog_firmware_resets_itself_at_seeded_moments() -> None:
    def resets(seed: int) -> list[int]:
        board = EmulatedBoard("10001", firmware="watchdog", seed=seed)
        counts = []
        for t in range(0, 1200, 10):
            board.tick(float(t))
            counts.append(board.watchdog_resets)
        return counts

    assert resets(3) == resets(3)
    assert resets(3)[-1] >= 4 and resets(3) != resets(4)
    assert EmulatedBoard("10001").firmware == firmware_named("classic")
    never = EmulatedBoard("10001")
    never.tick(5000.0)
    assert never.watchdog_resets == 0


def test_a_power_loss_is_deaf_dumb_and_unlogged_then_a_power_up() -> None:
    board = EmulatedBoard("10001", position=KINGS)
    single(board, Command.SEND_UPDATE_NICE, 1.0)
    assert board.set_square(4, 0, 2.0) == h("8E 00 05 04 00")  # a field update, in update mode
    board.lose_power(10.0, 2.0)
    assert not board.powered
    assert single(board, Command.RETURN_SERIALNR, 10.5) == b""
    assert board.set_square(3, 0x0B, 11.0) == b""  # the king moved in the dark: not logged
    assert written(board) == h(f"7F 7F 7F 6A {KINGS_LOG} 40 04")
    assert board.tick(11.9) == b""
    board.tick(12.0)  # power back: it boots, logging the pieces it now holds
    assert board.powered and board.power_losses == 1
    assert written(board) == h(f"7F 7F 7F 6A {KINGS_LOG} 40 04  7F 7F 7F 6A 4B 03 45 3C")
    assert single(board, Command.RETURN_SERIALNR, 12.3) == b""  # still booting
    assert single(board, Command.RETURN_SERIALNR, 12.6) == h("91 00 08 31 30 30 30 31")
    assert board.update_mode is UpdateMode.IDLE  # the host's UPDATE_NICE is gone
    assert board.set_square(3, 0, 13.0) == b""


def test_a_bus_board_that_lost_power_lost_its_change_buffer() -> None:
    board = EmulatedBoard("10001", position=KINGS)
    poll = BusRequest(BusCommand.SEND_CHANGES, 10001)
    board.handle(poll, 1.0)
    board.set_square(4, 0, 2.0)  # logged, waiting for the next poll...
    board.lose_power(2.5, 2.0)
    board.tick(4.5)
    # ...and gone with the power: 85, length 6, address 10001 = 4E 11, no data, checksum
    # 85 + 00 + 06 + 4E + 11 = 234 -> 234 mod 128 = 6A.
    assert board.handle(poll, 5.5) == h("85 00 06 4E 11 6A")
    assert BusStreamDecoder().feed(h("85 00 06 4E 11 6A")) == [
        BusReply(ProductBusReplyId.UPDATE, 10001, b"")
    ]


def test_the_start_tag_firmware_sends_from_its_power_up_on_the_bus() -> None:
    board = EmulatedBoard("10001", firmware="start-tag", position=KINGS)
    board.set_square(4, 0, 2.0)
    board.lose_power(3.0, 1.0)
    board.tick(4.0)
    # SEND_FROM_START: everything since the newest START_TAG, which the reboot wrote.
    reply = board.handle(BusRequest(BusCommand.SEND_FROM_START, 10001), 5.0)
    # 86, length 6 + 3, 4E 11, then START_TAG and the one piece left (white king e1).
    # checksum 86 + 00 + 09 + 4E + 11 + 7B + 45 + 3C = 490 -> 490 mod 128 = 6A.
    assert reply == h("86 00 09 4E 11 7B 45 3C 6A")


def test_a_serial_above_16383_answers_at_its_low_14_bits() -> None:
    board = EmulatedBoard("24317")
    # 24317 - 16384 = 7933 = 61 * 128 + 125 -> 3D 7D.
    assert board.address == 7933
    assert single(board, Command.RETURN_BUSADRES, 1.0) == h("90 00 05 3D 7D")
    assert BoardStreamDecoder().feed(h("90 00 05 3D 7D")) == [BusAddress(7933)]
    # back on the bus: 87 00 06 3D 7D, checksum 87 + 06 + 3D + 7D = 327 -> 47
    assert board.handle(BusRequest(BusCommand.PING, 7933), 2.0) == h("87 00 06 3D 7D 47")
    assert EmulatedBoard("24317", bus_address=1234).address == 1234
    with pytest.raises(ValueError, match="bus address 0"):
        EmulatedBoard("16384")


def test_firmware_names_and_lists() -> None:
    assert FIRMWARE_NAMES[0] == "classic"
    assert [f.name for f in firmware_list("classic, start-tag")] == ["classic", "start-tag"]
    with pytest.raises(ValueError, match="choose from classic"):
        firmware_list("classic,bogus")


def test_firmware_options_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from broadcast.cli import main

    example = str(ROOT / "examples" / "pamplona-masters.toml")
    db = ["--db", str(tmp_path / "j.sqlite")]
    assert main(["serve", example, *db, "--firmware", "classic"]) == 2
    assert "--firmware needs --sim" in capsys.readouterr().err
    assert main(["serve", example, *db, "--sim", "--firmware", "classic,bogus"]) == 2
    assert "no firmware variant 'bogus'; choose from classic" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["sim", "--firmware", "bogus"])
    assert "no firmware variant 'bogus'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["sim", "--power-loss", "soon"])
    assert "AT:SECONDS or AT:SECONDS:BOARD" in capsys.readouterr().err
