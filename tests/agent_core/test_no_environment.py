"""The engine reads no environment variable: it is handed its settings.

Whoever starts a process reads its configuration (the app's ``Settings`` at its composition
root) and hands the engine typed settings. Two modules are entry points of a process of their
own and read that process's environment; each is named here with the reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import agent_core

ENGINE = Path(agent_core.__file__).parent

#: Entry points that read their own process's environment, and why.
ENTRY_POINTS = {
    # The command line (``python -m agent_core replay``) is the composition root of its own
    # process: it reads the provider settings a ``--handoff provider:model`` runs on.
    "_cli.py": "the command line's provider settings",
    # Runs as the MCP server's parent in a child process, started by the MCP client with an
    # environment and nothing else of ours: the server's own secrets are environment
    # variables, and a command-line argument would show them in the process list.
    "tools/_mcp_stderr.py": "the names and values to redact, in the child's environment",
}

_ENV_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def environment_reads(source: str) -> list[int]:
    """The lines of ``source`` that touch the process's environment through :mod:`os`
    (``os.environ``, ``os.getenv``, ``from os import environ``, ``os`` under another name)."""
    tree = ast.parse(source)
    os_names = {"os"}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            os_names |= {a.asname or a.name for a in node.names if a.name == "os"}
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            lines += [node.lineno for a in node.names if a.name in _ENV_NAMES]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in _ENV_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id in os_names
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_scan_finds_every_way_of_reading_the_environment() -> None:
    source = (
        "import os\nimport os as system\nfrom os import getenv\n"
        "a = os.environ.get('X')\nb = system.getenv('Y')\nc = os.path.join('a')\n"
    )
    assert environment_reads(source) == [3, 4, 5]


def test_no_engine_module_reads_the_environment() -> None:
    readers = {
        path.relative_to(ENGINE).as_posix(): lines
        for path in sorted(ENGINE.rglob("*.py"))
        if (lines := environment_reads(path.read_text(encoding="utf-8")))
    }
    unexpected = {name: lines for name, lines in readers.items() if name not in ENTRY_POINTS}
    assert not unexpected, f"engine modules read the environment (hand them settings): {unexpected}"
    # An entry point that no longer reads its environment leaves the list.
    assert set(readers) == set(ENTRY_POINTS)
