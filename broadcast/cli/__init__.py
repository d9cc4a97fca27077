"""The `boardwire` command and its subcommands: the one layer that wires boards, clocks,
the event service, the web and the simulator together (`main` dispatches)."""

from broadcast.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
