"""The arbiter's side of the web: the desk (/arbiter) and the arbiter JSON API.

- `guard`: the middleware that lets in logged-in arbiters only (session + CSRF, or Basic);
- `login`: the login form, login and logout;
- `desk`: the desk page, its websocket and its forms (Post/Redirect/Get);
- `api`: the JSON API under /api/v1/arbiter;
- `actions`: what both call (`Desk`, `pair_round`), through the service, which journals
  every action with who did it as `arbiter:<user>`;
- `moves`: moves typed as on a scoresheet (SAN or UCI, with move numbers).

See `web.auth` for the session, CSRF, Basic and rate-limit rules.
"""

# The submodules are imported by name (`web.app` adds their routes); importing them here
# would make `web.keys` (which needs `actions.Desk` for its key) import itself.
__all__: list[str] = []
