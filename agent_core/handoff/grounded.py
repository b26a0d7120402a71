"""The grounded-facts records :func:`agent_core.handoff.facts.extract_facts` returns."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_core.handoff.artifact import FileChange, Todo

__all__ = ["CommandRun", "TestRun", "GitCommit", "GroundedFacts"]

_STRICT = ConfigDict(extra="forbid")


class CommandRun(BaseModel):
    """A shell command the agent ran; ``exit_status`` is None when the tool did not report it.
    ``changed_before`` are the files modified since the previous command (what a passing run
    after a failing one was fixed by); ``error`` is the error a run without an exit status
    printed (a Python traceback's last line)."""

    model_config = _STRICT
    command: str
    exit_status: int | None = None
    changed_before: list[str] = Field(default_factory=list)
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.exit_status not in (None, 0) or (self.exit_status is None
                                                      and self.error is not None)

    @property
    def passed(self) -> bool:
        return self.exit_status == 0 or (self.exit_status is None and self.error is None)


class TestRun(BaseModel):
    """A test command and its outcome (from the exit status, else from the runner's summary)."""

    model_config = _STRICT
    command: str
    outcome: Literal["passed", "failed", "unknown"]
    summary: str | None = None


class GitCommit(BaseModel):
    model_config = _STRICT
    sha: str
    message: str


class GroundedFacts(BaseModel):
    """Facts proven by tool calls. ``scratch_files`` were edited but are not part of the final
    change (deleted again, or absent from a submitted diff)."""

    model_config = _STRICT
    files_modified: list[FileChange] = Field(default_factory=list)
    files_read: list[str] = Field(default_factory=list)
    scratch_files: list[str] = Field(default_factory=list)
    commands: list[CommandRun] = Field(default_factory=list)
    test_runs: list[TestRun] = Field(default_factory=list)
    commits: list[GitCommit] = Field(default_factory=list)
    todos: list[Todo] = Field(default_factory=list)
    # Every real user message of the transcript, verbatim, oldest first: what the next session
    # must carry on with even when no model wrote the handoff.
    user_requests: list[str] = Field(default_factory=list)

    @property
    def modified_paths(self) -> list[str]:
        return [change.path for change in self.files_modified]

    @property
    def open_todos(self) -> list[Todo]:
        return [todo for todo in self.todos if todo.status != "completed"]
