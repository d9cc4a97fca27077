"""Publishing the public state: the round folder, the Lichess relay, their tasks."""
