"""`python -m broadcast.cli`: the `boardwire` command."""

import sys

from broadcast.cli.main import main

sys.exit(main())
