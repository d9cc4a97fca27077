"""The websocket hub: snapshots and deltas to spectators (delayed) and arbiters (live).

Three parts, each with one job:

- `deltas` (pure): frames, `diff` between two of them, snapshots;
- `wire` (pure): a message's text and its websocket frame, built once for every client;
- `channel`: one channel's sequence numbers, replay buffer, fan-out and bounded client
  queues;
- `server`: the aiohttp `Hub`, which follows the service and speaks the protocol.
"""

from web.hub.channel import Channel, Client
from web.hub.deltas import Delta, Frame, diff, game_deltas, snapshot_data
from web.hub.server import Hub
from web.hub.wire import Wire

__all__ = [
    "Channel",
    "Client",
    "Delta",
    "Frame",
    "Hub",
    "Wire",
    "diff",
    "game_deltas",
    "snapshot_data",
]
