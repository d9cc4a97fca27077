"""Team competitions' FIDE core (C.04.6 team Swiss, team round robins, C.07 tie-breaks for
teams): matches, their scores, team standings. Pure: no config, no I/O."""
