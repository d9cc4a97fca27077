"""The FIDE core: crosstables, TRF, tie-breaks, standings and pairing engines. Imports no config."""
