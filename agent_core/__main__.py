"""``python -m agent_core replay|import FILE ...`` (see :mod:`agent_core._cli`)."""

import sys

from agent_core._cli import main

sys.exit(main())
