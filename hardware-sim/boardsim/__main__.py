"""`python -m boardsim`: the simulator without the boardwire command."""

from boardsim.cli import main

raise SystemExit(main())
