"""The agent's tools: a virtual file system per thread, a todo list and a pseudo shell.

Files live in the thread's store (``ThreadFile`` rows in the app), so what the agent writes
survives resets and restarts and is visible to the next session.
"""

from __future__ import annotations

import shlex
from typing import Literal

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, ConfigDict, Field

from agent_core.ports import SessionStore
from agent_core.providers.simulator_script import command_output
from agent_core.validation import sanitize_text

__all__ = ["TodoItem", "make_tools", "TOOL_NAMES"]

TOOL_NAMES = ("read_file", "write_file", "edit_file", "write_todos", "run_command")
_MAX_FILE_CHARS = 200_000


class TodoItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    content: str = Field(description="What to do, in a few words")
    status: Literal["pending", "in_progress", "completed", "blocked"] = "pending"
    id: str | None = Field(default=None, description="Stable id of the todo")
    parent_id: str | None = Field(default=None, description="Id of the parent todo, if nested")


def _normalize(path: str) -> str:
    cleaned = path.strip().lstrip("./").lstrip("/")
    if not cleaned or ".." in cleaned.split("/"):
        raise ValueError(f"invalid path {path!r}: use a relative path inside the workspace")
    return cleaned


def make_tools(store: SessionStore, thread_id: str) -> list[BaseTool]:
    """The tools bound to one thread's virtual workspace."""

    def read_file(path: str) -> str:
        """Read a file from the workspace."""
        content = store.read_file(thread_id, _normalize(path))
        if content is None:
            return f"error: {path} does not exist"
        return content

    def write_file(path: str, content: str) -> str:
        """Create or overwrite a file in the workspace."""
        if len(content) > _MAX_FILE_CHARS:
            return f"error: content is {len(content)} characters; the limit is {_MAX_FILE_CHARS}"
        store.write_file(thread_id, _normalize(path), sanitize_text(content))
        return f"wrote {path} ({content.count(chr(10)) + 1} lines)"

    def edit_file(path: str, old_string: str, new_string: str) -> str:
        """Replace the first occurrence of old_string with new_string in a file."""
        target = _normalize(path)
        content = store.read_file(thread_id, target)
        if content is None:
            return f"error: {path} does not exist"
        if old_string not in content:
            return f"error: the text to replace was not found in {path}"
        store.write_file(thread_id, target, content.replace(old_string, new_string, 1))
        return f"edited {path}"

    def write_todos(todos: list[TodoItem]) -> str:
        """Replace the todo list. Mark one todo in_progress at a time."""
        done = sum(1 for t in todos if t.status == "completed")
        return f"todo list updated: {done}/{len(todos)} completed"

    def run_command(command: str) -> str:
        """Run a shell command in the workspace (simulated) and return its output."""
        words = shlex.split(command) if command.strip() else []
        if words[:1] == ["ls"]:
            return "\n".join(store.list_files(thread_id)) + "\n[exit status 0]"
        if words[:1] == ["cat"] and len(words) == 2:
            content = store.read_file(thread_id, _normalize(words[1]))
            if content is None:
                return f"cat: {words[1]}: No such file or directory\n[exit status 1]"
            return content + "\n[exit status 0]"
        return command_output(command)

    functions = (read_file, write_file, edit_file, write_todos, run_command)
    return [StructuredTool.from_function(f, name=f.__name__) for f in functions]
