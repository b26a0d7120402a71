"""The thread's history as the agent can reread it: search terms shared by every store,
and the ``search_history``/``read_history`` tools. Re-exports nothing."""
