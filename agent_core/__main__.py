"""``python -m agent_core replay|import FILE ...`` (see :mod:`agent_core.cli`)."""

import sys

from agent_core.cli import main

sys.exit(main())
