"""Exports as text: PGN (game, round, event) and TRF-16 for the rating report.

Pure text builders; writing them to a folder and pushing them to Lichess is
`broadcast.publish`."""
