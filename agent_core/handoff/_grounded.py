"""The grounded-facts records :func:`agent_core.handoff._facts.extract_facts` returns."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_core.handoff._artifact import FileChange, Todo

__all__ = [
    "CommandRun",
    "TestRun",
    "GitCommit",
    "UserRequest",
    "WorkItem",
    "Progress",
    "GroundedFacts",
]

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


WorkItemState = Literal["open", "in_progress", "done", "blocked"]


class WorkItem(BaseModel):
    """One unit of the agent's work, however it tracked it: a todo, a tracker issue (beads,
    GitHub, an ``ABC-123`` id in a branch or commit), a plan-file entry, a step of a plan it
    stated. ``evidence`` holds one short line per change of state (what proves it);
    ``started``/``finished`` are the message indices where it went under way and was done
    (-1: not seen); ``blocker`` says what blocks a blocked item."""

    model_config = _STRICT
    key: str
    title: str
    id: str | None = None
    source: Literal["todo", "tracker", "plan_file", "plan_text"] = "tracker"
    state: WorkItemState = "open"
    blocker: str | None = None
    evidence: list[str] = Field(default_factory=list)
    started: int = -1
    finished: int = -1
    #: The message index of the newest evidence about it.
    updated: int = -1
    #: The title came from a tool's output (a tracker listing, a file read back), not from
    #: the agent's own command or write: it is data, and a next step names the id instead.
    title_from_output: bool = False

    @property
    def label(self) -> str:
        """The item as a line names it: its id first when the title does not start with it."""
        if self.id and not self.title.startswith(self.id):
            return f"{self.id} {self.title}"
        return self.title

    @property
    def named(self) -> str:
        """The item as something to act on: never words a tool printed."""
        if not self.title_from_output:
            return self.label
        return self.id or "the first item of Remaining Tasks"


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
    #: The work items of every source, in the order first seen; the one under way at the cut.
    items: list[WorkItem] = Field(default_factory=list)
    current: WorkItem | None = None
    #: What the evidence says comes next (already quoted or phrased), empty when nothing does.
    next_step: str = ""
    #: The last check (a test, lint or build command) run since the item under way started.
    last_check: CommandRun | None = None
    #: The agent's last words and last few actions, short and verbatim.
    last_words: str | None = None
    last_actions: list[str] = Field(default_factory=list)
    #: The message index of the user's last message: the turn under way started there.
    turn_start: int = -1
    #: The last words of the agent's finished reply when they ask the user something.
    question: str | None = None

    @property
    def remaining(self) -> list[WorkItem]:
        """The items still to do after the one under way, in order."""
        return [
            item
            for item in self.items
            if item.state in ("open", "blocked")
            and (self.current is None or item.key != self.current.key)
        ]


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
