"""A tiny MCP server for the tests, spoken to over stdio: ``python notes_server.py``.

Its ``shout`` tool upper-cases a text and signs it with the ``NOTES_SIGNATURE`` environment
variable, so a test sees that the server really ran and that its secrets reached it.
"""

import os

from mcp.server.fastmcp import FastMCP

server = FastMCP("notes")


@server.tool()
def shout(text: str) -> str:
    """Upper-case a text."""
    return f"{text.upper()} (signed {os.environ.get('NOTES_SIGNATURE', 'nobody')})"


@server.tool()
def fail(reason: str) -> str:
    """Always fails, with the reason given."""
    raise ValueError(reason)


@server.tool()
def flood(chars: int) -> str:
    """Returns a text of the given length, opened by 'a' and closed by 'z'."""
    return "a" + "x" * (chars - 2) + "z"


def _extra_tool(number: int):
    def lookup(topic: str, depth: int = 1) -> str:
        return f"entry {number} on {topic} at depth {depth}"

    return lookup


# NOTES_EXTRA_TOOLS=N adds N lookup tools with long descriptions: a server whose tool list
# alone takes thousands of tokens of the model's context.
for _number in range(int(os.environ.get("NOTES_EXTRA_TOOLS", "0"))):
    server.add_tool(
        _extra_tool(_number),
        name=f"lookup_{_number}",
        description=f"Look up topic {_number} in the notes archive. " * 12,
    )


if __name__ == "__main__":
    server.run("stdio")
