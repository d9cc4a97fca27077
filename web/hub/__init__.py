"""The websocket hub: snapshots and deltas to spectators (delayed) and arbiters (live).

Three parts, each with one job:

- `deltas` (pure): frames, `diff` between two of them, snapshots;
- `channel`: one channel's sequence numbers, replay buffer and bounded client queues;
- `server`: the aiohttp `Hub`, which follows the service and speaks the protocol.
"""

from web.hub.channel import Channel, Client
from web.hub.deltas import Delta, Frame, diff, game_deltas, snapshot_data
from web.hub.server import Hub

__all__ = ["Channel", "Client", "Delta", "Frame", "Hub", "diff", "game_deltas", "snapshot_data"]
