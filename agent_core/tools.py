"""The agent's tools: a virtual file system per thread, a todo list and a pseudo shell.

Files live in the thread's store (``ThreadFile`` rows in the app), so what the agent writes
survives resets and restarts and is visible to the next session.
"""

from __future__ import annotations

import shlex
from typing import Literal

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, ConfigDict, Field

from agent_core.errors import ToolInputError
from agent_core.ports import SessionStore
from agent_core.providers.simulator_script import command_output
from agent_core.tool_errors import invalid_arguments
from agent_core.validation import sanitize_text
from agent_core.workspace import workspace_path

__all__ = ["TodoItem", "make_tools", "TOOL_NAMES"]

TOOL_NAMES = ("read_file", "write_file", "edit_file", "write_todos", "run_command")
_MAX_FILE_CHARS = 200_000


class TodoItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    content: str = Field(description="What to do, in a few words")
    status: Literal["pending", "in_progress", "completed", "blocked"] = "pending"
    id: str | None = Field(default=None, description="Stable id of the todo")
    parent_id: str | None = Field(default=None, description="Id of the parent todo, if nested")


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


def make_tools(store: SessionStore, thread_id: str) -> list[BaseTool]:
    """The tools bound to one thread's virtual workspace.

    Arguments a tool cannot use raise :class:`~agent_core.errors.ToolInputError`, and schema
    mismatches are described by :func:`agent_core.tool_errors.invalid_arguments`: the agent
    loop returns both to the model as error results (see :mod:`agent_core.tool_errors`).
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
        store.write_file(thread_id, target, sanitize_text(content.replace(old_string, new_string, 1)))
        return f"edited {target}"

    def write_todos(todos: list[TodoItem]) -> str:
        """Replace the todo list. Mark one todo in_progress at a time."""
        done = sum(1 for t in todos if t.status == "completed")
        return f"todo list updated: {done}/{len(todos)} completed"

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

    functions = (read_file, write_file, edit_file, write_todos, run_command)
    tools: list[BaseTool] = [StructuredTool.from_function(f, name=f.__name__) for f in functions]
    for tool in tools:
        tool.handle_validation_error = invalid_arguments(tool)
    return tools
