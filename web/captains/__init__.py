"""The captains' side of a team event: each team's lineup page (`/captain/{section}/{team}`,
behind the team's captain code), where a captain sends the lineup without an arbiter's
login.

`codes` (the captain codes, from a key kept with the journal), `parts` (what the app holds
for them, the page's address), `page` (the routes; `setup(app)` adds them).
"""
