"""The agent's tools: a virtual file system per thread, a todo list and a shell.

Files live in the thread's store (``ThreadFile`` rows in the app), so what the agent writes
survives resets and restarts and is visible to the next session.

The shell depends on who asks (:func:`command_mode`): the offline simulator gets a scripted
shell whose rows the chat labels "simulated"; a real model gets commands run for real in the
:class:`~agent_core.sandbox.Sandbox` over a copy of the workspace, the changes written back
to the store, or no ``run_command`` at all when this host cannot sandbox.
"""

from __future__ import annotations

import asyncio
import shlex
from typing import Literal

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from agent_core.errors import ToolInputError
from agent_core.providers._simulator_script import command_output
from agent_core.sandbox import Sandbox, SandboxResult, sandbox_unavailable_reason
from agent_core.storage._ports import SessionStore
from agent_core.storage._workspace import workspace_path
from agent_core.tools._failures import checked_tool
from agent_core.validation import sanitize_text

__all__ = ["TodoItem", "make_tools", "TOOL_NAMES", "CommandMode", "command_mode", "shown_run"]

TOOL_NAMES = ("read_file", "write_file", "edit_file", "write_todos", "run_command")
_MAX_FILE_CHARS = 200_000
# What of a command's output reaches the model: its start and its end (where errors and
# test summaries are), so one noisy command cannot fill the context window.
_OUTPUT_HEAD_CHARS, _OUTPUT_TAIL_CHARS = 4_000, 12_000

#: ``simulated``: the simulator's scripted shell; ``sandbox``: real commands, isolated;
#: ``off``: no ``run_command`` (a real model on a host that cannot sandbox).
CommandMode = Literal["simulated", "sandbox", "off"]


def command_mode(is_simulator: bool, *, commands_enabled: bool = True) -> CommandMode:
    """How ``run_command`` works for a model: never made-up output for a real one, and none
    at all where the host's switch (``commands_enabled``) turns real commands off."""
    if is_simulator:
        return "simulated"
    return "sandbox" if sandbox_unavailable_reason(commands_enabled) is None else "off"


def shown_run(result: SandboxResult) -> str:
    """A sandboxed run as the model reads it: output (clipped), notes, ``[exit status N]``."""
    output = sanitize_text(result.output)
    if len(output) > _OUTPUT_HEAD_CHARS + _OUTPUT_TAIL_CHARS:
        cut = len(output) - _OUTPUT_HEAD_CHARS - _OUTPUT_TAIL_CHARS
        output = (
            f"{output[:_OUTPUT_HEAD_CHARS]}\n[... {cut} characters of output cut ...]\n"
            f"{output[-_OUTPUT_TAIL_CHARS:]}"
        )
    lines = [output.rstrip("\n")] if output.strip() else []
    lines += result.notes
    lines.append(f"[exit status {result.exit_status}]")
    return "\n".join(lines)


class TodoItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    content: str = Field(description="What to do, in a few words")
    status: Literal["pending", "in_progress", "completed", "blocked"] = "pending"
    id: str | None = Field(default=None, description="Stable id of the todo")
    parent_id: str | None = Field(default=None, description="Id of the parent todo, if nested")
    blocker: str | None = Field(
        default=None, description="When status is blocked: what it waits for, in a few words"
    )


def _command_words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError as exc:  # shlex's only failure: a quote or an escape left open
        raise ToolInputError(
            f"unbalanced quote in the command: {exc}. Close the quote (or escape it) and run "
            "the command again"
        ) from None


def _missing(path: str) -> ToolInputError:
    return ToolInputError(f"{path} does not exist; run_command 'ls' lists the workspace's files")


def make_tools(
    store: SessionStore,
    thread_id: str,
    *,
    commands: CommandMode = "simulated",
    sandbox: Sandbox | None = None,
) -> list[BaseTool]:
    """The tools bound to one thread's virtual workspace; ``run_command`` as ``commands``
    says (``sandbox`` defaults to a :class:`~agent_core.sandbox.Sandbox` with its limits).

    Arguments a tool cannot use raise :class:`~agent_core.errors.ToolInputError`, and schema
    mismatches are described by :func:`agent_core.tools._failures.invalid_arguments`: the agent
    loop returns both to the model as error results (see :mod:`agent_core.tools._failures`).
    """

    def read_file(path: str) -> str:
        """Read a file from the workspace."""
        target = workspace_path(path)
        content = store.read_file(thread_id, target)
        if content is None:
            raise _missing(target)
        return content

    def write_file(path: str, content: str) -> str:
        """Create or overwrite a file in the workspace."""
        target = workspace_path(path)
        if len(content) > _MAX_FILE_CHARS:
            raise ToolInputError(
                f"content is {len(content)} characters; the limit is {_MAX_FILE_CHARS}. Split it "
                "into several files"
            )
        store.write_file(thread_id, target, sanitize_text(content))
        return f"wrote {target} ({content.count(chr(10)) + 1} lines)"

    def edit_file(path: str, old_string: str, new_string: str) -> str:
        """Replace the first occurrence of old_string with new_string in a file."""
        target = workspace_path(path)
        if not old_string:
            raise ToolInputError(
                "old_string is empty; give the exact text to replace (write_file creates a file)"
            )
        content = store.read_file(thread_id, target)
        if content is None:
            raise _missing(target)
        if old_string not in content:
            raise ToolInputError(
                f"the text to replace was not found in {target}; read_file shows its content"
            )
        store.write_file(
            thread_id, target, sanitize_text(content.replace(old_string, new_string, 1))
        )
        return f"edited {target}"

    def write_todos(todos: list[TodoItem]) -> str:
        """Replace the todo list. Mark one todo in_progress at a time; a todo that cannot go
        on is blocked, with its blocker."""
        done = sum(1 for t in todos if t.status == "completed")
        blocked = [t for t in todos if t.status == "blocked"]
        if missing := [t.content for t in blocked if not (t.blocker or "").strip()]:
            raise ToolInputError(f"a blocked todo needs its blocker: {', '.join(missing)}")
        tail = f", {len(blocked)} blocked" if blocked else ""
        return f"todo list updated: {done}/{len(todos)} completed{tail}"

    def run_command(command: str) -> str:
        """Run a shell command in the workspace (simulated) and return its output."""
        words = _command_words(command)
        if words[:1] == ["ls"]:
            return "\n".join(store.list_files(thread_id)) + "\n[exit status 0]"
        if words[:1] == ["cat"] and len(words) == 2:
            content = store.read_file(thread_id, workspace_path(words[1]))
            if content is None:
                return f"cat: {words[1]}: No such file or directory\n[exit status 1]"
            return content + "\n[exit status 0]"
        return command_output(command)

    functions = (read_file, write_file, edit_file, write_todos)
    tools: list[BaseTool] = [checked_tool(f, name=f.__name__) for f in functions]
    if commands == "simulated":
        tools.append(checked_tool(run_command, name="run_command"))
    elif commands == "sandbox":
        tools.append(_sandboxed_run_command(store, thread_id, sandbox or Sandbox()))
    return tools


def _sandboxed_run_command(store: SessionStore, thread_id: str, sandbox: Sandbox) -> BaseTool:
    async def run_command(command: str) -> str:
        if not command.strip():
            raise ToolInputError("the command is empty; give a shell command, e.g. ls -la")
        files = await asyncio.to_thread(_workspace_files, store, thread_id)
        result = await sandbox.arun(files, command)  # cancelling the turn kills the command
        if result.changes:
            await asyncio.to_thread(
                store.apply_file_changes,
                thread_id,
                written={
                    path: sanitize_text(text) for path, text in result.changes.written.items()
                },
                deleted=list(result.changes.deleted),
            )
        return shown_run(result)

    def run_command_sync(command: str) -> str:
        return asyncio.run(run_command(command))

    limits = sandbox.limits
    network = "with network access" if sandbox.network else "without network access"
    return checked_tool(
        run_command_sync,
        coroutine=run_command,
        name="run_command",
        description=(
            "Run a shell command (/bin/sh -c) in the workspace directory and return its output "
            f"and exit status. It runs isolated, {network}, for at most {limits.timeout:g} s; "
            "files it creates, changes or deletes in the workspace are kept (text files only)."
        ),
    )


def _workspace_files(store: SessionStore, thread_id: str) -> dict[str, str]:
    files = {}
    for path in store.list_files(thread_id):
        content = store.read_file(thread_id, path)
        if content is not None:
            files[path] = content
    return files
