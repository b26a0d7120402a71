"""The agent's tools: built-in file and command tools, MCP servers, tool failures."""
