"""The thread's history as the agent can reread it: the ``search_history``/``read_history``
tools."""

from agent_core.history._tools import MAX_HITS, make_history_tools, read_history_call

__all__ = ["MAX_HITS", "make_history_tools", "read_history_call"]
