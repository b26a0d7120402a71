"""The grounded-facts records :func:`agent_core.handoff.facts.extract_facts` returns."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_core.handoff.artifact import FileChange, Todo

__all__ = ["CommandRun", "TestRun", "GitCommit", "UserRequest", "Progress", "GroundedFacts"]

_STRICT = ConfigDict(extra="forbid")


class CommandRun(BaseModel):
    """A shell command the agent ran; ``exit_status`` is None when the tool did not report it.
    ``changed_before`` are the files modified since the previous command (what a passing run
    after a failing one was fixed by); ``error`` is the error line its output ended with (a
    traceback's last line, a failed test's summary); ``cause`` is what the assistant said,
    before the fix (or the next run of it), about why it failed; ``index`` is the position of
    the message holding its result."""

    model_config = _STRICT
    command: str
    exit_status: int | None = None
    changed_before: list[str] = Field(default_factory=list)
    error: str | None = None
    cause: str | None = None
    index: int = -1
    #: Files a failed run points at: named in its output, or read next to diagnose it (a fix
    #: by editing is credited only to these and to files its command names).
    named: list[str] = Field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.exit_status not in (None, 0) or (
            self.exit_status is None and self.error is not None
        )

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


class UserRequest(BaseModel):
    """One real user message, verbatim. ``index`` is its position in the messages read;
    ``queued`` that the user typed it while the agent worked; ``answered`` that a completed
    reply (a turn's final answer, a submission) came after it."""

    model_config = _STRICT
    text: str
    index: int = -1
    queued: bool = False
    answered: bool = False
    #: How many times the user sent this same text (it is listed once, where sent last).
    times: int = Field(default=1, ge=1)


class Progress(BaseModel):
    """What was being done when the session stopped, from evidence alone.

    ``todo`` is the todo in progress (or the last one started and not completed) with its
    place in the list; ``changed`` the files modified since the last completed item (a todo
    marked done, else the last final reply); ``failing`` the last failed command that has not
    passed since; ``unanswered`` the requests no completed reply followed, oldest first;
    ``intention`` the assistant's last stated plan ("Next I'll …") in its unfinished turn."""

    model_config = _STRICT
    todo: str | None = None
    todo_place: tuple[int, int] | None = None
    changed: list[str] = Field(default_factory=list)
    #: Of ``changed``, those an edit (not a whole-file write) changed since.
    edited: list[str] = Field(default_factory=list)
    failing: CommandRun | None = None
    unanswered: list[UserRequest] = Field(default_factory=list)
    intention: str | None = None


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
    # Every real user message of the transcript, verbatim, oldest first (typed while the agent
    # worked included): what the next session must carry on with even when no model wrote it.
    requests: list[UserRequest] = Field(default_factory=list)
    progress: Progress = Field(default_factory=Progress)
    #: Completed replies (turns the agent finished): an earlier open request is answered.
    replies: int = Field(0, ge=0)

    @property
    def user_requests(self) -> list[str]:
        return [request.text for request in self.requests]

    @property
    def modified_paths(self) -> list[str]:
        return [change.path for change in self.files_modified]

    @property
    def open_todos(self) -> list[Todo]:
        return [todo for todo in self.todos if todo.status != "completed"]
