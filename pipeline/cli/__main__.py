"""`python -m pipeline.cli`: the same as the `memroute` console script."""

import sys

from pipeline.cli import main

sys.exit(main())
