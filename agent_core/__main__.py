"""``python -m agent_core replay FILE ...`` (see :mod:`agent_core.replay`)."""

import sys

from agent_core.replay import main

sys.exit(main())
