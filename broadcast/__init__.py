"""The domain: games, tournaments, arbiter rules, journal, exports, the service and the CLI."""
