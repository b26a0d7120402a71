"""MCP servers as tool sources: an assistant's servers lend the agent their tools.

Each server is a stdio command or a streamable-HTTP URL (:class:`McpServer`), loaded through
``langchain-mcp-adapters``. :class:`McpToolbox` loads a list of servers at the start of a
turn, each within a time limit, and keeps what a server offered for a while (keyed by its
whole configuration, secrets included, so an edit takes effect at once). A server that does
not start, answers too slowly or fails on the way in is left out of that turn and described
in a problem line the chat shows; the turn goes on with the other tools.

A tool call opens its own connection to the server (the adapters' default): a stdio server
is started for the call and stopped after it, so nothing is left running between turns and
several workers need no shared connection.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from agent_core.redaction import (
    argv_secrets,
    redact_argv,
    redact_text,
    redact_url,
    remember_secrets,
)
from agent_core.tools._mcp_stderr import REDACT_ENV, REDACT_VALUES_ENV

__all__ = ["McpServer", "McpToolbox", "ToolLoad", "MCP_NAME_PATTERN", "clip_text"]

# What of a tool's text output reaches the model, as for run_command: its start and its end,
# so one talkative server cannot fill the context window.
_OUTPUT_HEAD_CHARS, _OUTPUT_TAIL_CHARS = 4_000, 12_000

#: Server names prefix their tools' names (``docs_search``), which providers limit to these.
MCP_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
_STDERR_WRAPPER = Path(__file__).with_name("_mcp_stderr.py")


class McpServer(BaseModel):
    """One MCP server of an assistant. ``secrets`` are environment variables for a command
    and HTTP headers for a URL; they are passed to the server and never shown back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=MCP_NAME_PATTERN)
    transport: Literal["stdio", "http"]
    command: str = ""
    args: tuple[str, ...] = ()
    url: str = ""
    secrets: dict[str, str] = Field(default_factory=dict)

    def connection(self, *, call_timeout: float) -> dict[str, Any]:
        """The adapters' connection settings for this server."""
        session = {"read_timeout_seconds": timedelta(seconds=call_timeout)}
        if self.transport == "stdio":
            # Started through mcp_stderr.py, which redacts the secrets from its stderr log.
            # A secret given on the command line (--token X) is redacted there too.
            env = {
                **self.secrets,
                REDACT_ENV: json.dumps(sorted(self.secrets)),
                REDACT_VALUES_ENV: json.dumps(argv_secrets(self.args)),
            }
            return {
                "transport": "stdio",
                "command": sys.executable,
                "args": [str(_STDERR_WRAPPER), self.command, *self.args],
                "env": env,
                "session_kwargs": session,
            }
        return {
            "transport": "streamable_http",
            "url": self.url,
            "headers": dict(self.secrets) or None,
            "timeout": call_timeout,
            "session_kwargs": session,
        }

    def fingerprint(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()

    def where(self) -> str:
        """Where the server runs, to show (the admin page, a chat's note, the history): the
        command line with its secret arguments redacted, or the URL without credentials."""
        if self.transport == "stdio":
            return " ".join([self.command, *redact_argv(self.args)]).strip()
        return redact_url(self.url)

    def secret_values(self) -> list[str]:
        """Every secret of the server: its environment or headers, and what its command
        line or URL carries."""
        return [*self.secrets.values(), *argv_secrets(self.args), *argv_secrets([self.url])]


@dataclass
class ToolLoad:
    """What a turn gets from its MCP servers: the tools, and a line per server that failed."""

    tools: list[BaseTool] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class McpToolbox:
    """Loads MCP servers' tools for turns: ``load_timeout`` seconds per server, successes
    kept ``cache_seconds`` (failures are retried on the next turn, so a fix applies at once).
    ``clock`` replaces the monotonic clock in tests."""

    def __init__(
        self,
        *,
        load_timeout: float = 20.0,
        call_timeout: float = 120.0,
        cache_seconds: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.load_timeout = load_timeout
        self.call_timeout = call_timeout
        self.cache_seconds = cache_seconds
        self._clock = clock
        self._cache: dict[str, tuple[float, list[BaseTool]]] = {}
        # Loads under way, by fingerprint: a second turn (or a size check) starting while a
        # server is still starting waits for that start instead of launching another.
        self._loading: dict[str, asyncio.Task[list[BaseTool]]] = {}

    async def load(self, servers: Sequence[McpServer]) -> ToolLoad:
        """Every server's tools, loaded side by side; a failing server becomes a problem."""
        # Whatever the servers or the libraries under them log, their secrets are redacted.
        remember_secrets(v for server in servers for v in server.secret_values())
        results = await asyncio.gather(
            *(self._server_tools(s) for s in servers), return_exceptions=True
        )
        load = ToolLoad()
        for server, result in zip(servers, results, strict=True):
            if isinstance(result, BaseException):
                load.problems.append(_problem(server, result, self.load_timeout))
            else:
                load.tools.extend(result)
        return load

    async def _server_tools(self, server: McpServer) -> list[BaseTool]:
        key = server.fingerprint()
        cached = self._cache.get(key)
        if cached is not None and self._clock() - cached[0] < self.cache_seconds:
            return cached[1]
        loading = self._loading.get(key)
        if loading is None or loading.get_loop() is not asyncio.get_running_loop():
            loading = self._loading[key] = asyncio.ensure_future(self._start(server))
            loading.add_done_callback(lambda task: self._loaded(key, task))
        # Shielded: one waiter giving up (a cancelled turn) does not cancel the others' load.
        return await asyncio.shield(loading)

    def _loaded(self, key: str, task: asyncio.Task[list[BaseTool]]) -> None:
        if self._loading.get(key) is task:
            del self._loading[key]
        if not task.cancelled():
            task.exception()  # retrieved: a failure whose waiters all left is not reported twice

    async def _start(self, server: McpServer) -> list[BaseTool]:
        key = server.fingerprint()
        # Imported here: the adapters pull in the MCP SDK, which only assistants with servers need.
        from langchain_mcp_adapters.client import MultiServerMCPClient

        client = MultiServerMCPClient(
            {server.name: server.connection(call_timeout=self.call_timeout)},  # type: ignore[dict-item]
            tool_name_prefix=True,
            tool_interceptors=[_clip_output],
        )
        tools = await asyncio.wait_for(client.get_tools(server_name=server.name), self.load_timeout)
        self._cache[key] = (self._clock(), tools)
        return tools


def clip_text(text: str) -> str:
    """``text`` cut to its head and tail when longer than the model should read at once."""
    if len(text) <= _OUTPUT_HEAD_CHARS + _OUTPUT_TAIL_CHARS:
        return text
    cut = len(text) - _OUTPUT_HEAD_CHARS - _OUTPUT_TAIL_CHARS
    return (
        f"{text[:_OUTPUT_HEAD_CHARS]}\n[... {cut} characters of output cut ...]\n"
        f"{text[-_OUTPUT_TAIL_CHARS:]}"
    )


async def _clip_output(request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
    result = await handler(request)
    content = getattr(result, "content", None)
    if not isinstance(content, list):
        return result
    clipped = [
        block.model_copy(update={"text": clip_text(block.text)})
        if isinstance(getattr(block, "text", None), str)
        else block
        for block in content
    ]
    return result.model_copy(update={"content": clipped})


def _problem(server: McpServer, error: BaseException, timeout: float) -> str:
    if isinstance(error, TimeoutError):
        why = f"it did not answer within {timeout:g} s"
    else:
        why = _innermost(error)
    # An error may quote the configuration back; the secrets never reach the chat.
    why = redact_text(why, server.secret_values())
    return (
        f"MCP server '{server.name}' ({server.where()}) could not be used: {why}. "
        "Its tools are left out of this turn; an admin can fix it on /admin."
    )


def _innermost(error: BaseException) -> str:
    # anyio wraps a failed start in exception groups; the first leaf says what went wrong.
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip() or type(error).__name__
    return text if len(text) <= 300 else text[:300] + "…"
