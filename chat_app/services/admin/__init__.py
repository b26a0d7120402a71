"""The admin page's use cases: assistants and their settings, MCP servers, what a model can do."""
