"""LiveChess's local API as boardwire serves it (`serve --livechess-api`): the venue's
live view for the LAN tools built for DGT LiveChess (docs/livechess.md).

`feed` (pure: what a subscriber is told, from what it was told and the board now),
`protocol` (pure: a request read totally, the replies' frames), `views` (the service's
state as LiveChess's JSON), `server` (the listener: its own aiohttp app and runner).
"""
