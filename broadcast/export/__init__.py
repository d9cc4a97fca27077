"""Exports: PGN (game, round, event), a broadcast folder, TRF-16 for the rating report.

Pure text builders (`pgn`, `trf`) and one thin writer (`folder`); the Lichess push relay
is in `broadcast.relay`.
"""
