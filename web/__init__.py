"""The aiohttp server: spectator pages, arbiter desk, JSON API, websocket hub, PGN feeds."""
