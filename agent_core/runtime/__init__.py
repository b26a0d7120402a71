"""Running a turn: the agent graph, its middleware, the session coordinator, the thread runner, lanes and user control over resets."""
