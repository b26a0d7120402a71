"""Run a stdio MCP server with the secrets in its stderr redacted.

Usage (what :meth:`agent_core.tools._mcp.McpServer.connection` starts):
``python mcp_stderr.py <command> [args...]`` with ``BATON_MCP_REDACT`` naming, as a JSON list,
the environment variables that hold the server's secrets, and ``BATON_MCP_REDACT_VALUES``
listing secret values given on its command line. The server gets this process's
stdin and stdout (the MCP stream) and environment; what it writes to stderr (a traceback
quoting its API key, a debug line with a token) is copied to this process's stderr, which
is the app's log, with every secret value (six characters or more) replaced by
``[redacted]``, as :func:`agent_core.redaction.redact_text` does for the app's own logs.

It runs as a script, not as ``-m agent_core...``, so a tool call's server start does not
import the package. The MCP client stops the server by killing its process group, which
this process and the server share.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REDACT_ENV = "BATON_MCP_REDACT"
#: Secret values that are not in the environment (a token given as an argument), as JSON.
REDACT_VALUES_ENV = "BATON_MCP_REDACT_VALUES"
_MIN_SECRET = 6


def _redaction() -> ModuleType:
    """The ``agent_core/redaction`` package loaded on its own (it needs only the standard
    library, and its modules import one another relatively), so the server's log lines are
    redacted as the app's are (a secret upper-cased or base64-encoded too) without importing
    ``agent_core`` for each start."""
    path = Path(__file__).parent.parent / "redaction" / "__init__.py"
    name = "baton_mcp_redaction"
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[str(path.parent)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # where its relative imports find their package
    spec.loader.exec_module(module)
    return module


def redact_line(line: bytes, secrets: list[str], redact: Callable[..., str]) -> bytes:
    """One line of the server's stderr with its secrets redacted (a line that is not UTF-8
    is read with replacements: the log is text)."""
    if not secrets:
        return line
    return redact(line.decode("utf-8", errors="replace"), secrets).encode("utf-8")


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: mcp_stderr.py <command> [args...]", file=sys.stderr)
        return 2
    names = json.loads(os.environ.pop(REDACT_ENV, "[]") or "[]")
    values = {os.environ.get(name, "") for name in names}
    values |= set(json.loads(os.environ.pop(REDACT_VALUES_ENV, "[]") or "[]"))
    secrets = sorted((v for v in values if len(v) >= _MIN_SECRET), key=len, reverse=True)
    redact = _redaction().redact_text
    try:
        server = subprocess.Popen(argv, stderr=subprocess.PIPE)  # stdin/stdout: the MCP stream
    except OSError as exc:
        sys.stderr.write(f"cannot start {argv[0]}: {exc.strerror}\n")
        return 127
    assert server.stderr is not None
    for line in server.stderr:
        sys.stderr.buffer.write(redact_line(line, secrets, redact))
        sys.stderr.buffer.flush()
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
