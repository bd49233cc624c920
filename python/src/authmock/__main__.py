"""`python -m authmock ARGS…` is the `authmock` console script."""

import sys

from ._cli import main

sys.exit(main())
