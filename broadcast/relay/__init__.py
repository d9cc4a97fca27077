"""Relays: pushing the (delayed) games upstream, e.g. to a Lichess broadcast round."""
