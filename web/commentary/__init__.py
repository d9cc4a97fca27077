"""The commentators' and the press's live channel: read-only, undelayed, behind its own
login (a role beside the arbiter's), never on the public routes and never on a mirror.

`live_source` is the live state shaped as the public pages read it; `page` the routes
under `/commentary` (the login, the page, its JSON and its websocket), which only the
venue's app registers (`web.app.build_app`; `build_mirror_app` never does).
"""
