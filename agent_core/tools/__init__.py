"""The agent's tools: built-in file and command tools, MCP servers, tool failures."""

from agent_core.tools._builtin import command_mode, make_tools
from agent_core.tools._mcp import MCP_NAME_PATTERN, McpServer, McpToolbox, ToolLoad

__all__ = ["MCP_NAME_PATTERN", "McpServer", "McpToolbox", "ToolLoad", "command_mode", "make_tools"]
