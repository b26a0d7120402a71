"""The parts a handoff artifact is made of: a file change, a todo, a coverage check."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "STRICT",
    "CheckKind",
    "CoverageCheck",
    "FileChange",
    "HandoffTrigger",
    "Todo",
    "TodoStatus",
    "Utilization",
    "one_line",
]

HandoffTrigger = Literal["auto", "manual", "overflow"]
TodoStatus = Literal["pending", "in_progress", "completed", "blocked"]
CheckKind = Literal["files", "todos", "requests", "commits", "pinned"]

STRICT = ConfigDict(extra="forbid", validate_assignment=True)


def one_line(value: str) -> str:
    # Paths, evidence and todo text are rendered on a single markdown line.
    return " ".join(value.split())


class FileChange(BaseModel):
    """A file the thread modified; ``verified`` means a tool call proves it; ``sessions`` are
    the sessions that modified it (empty in artifacts written before it was recorded)."""

    model_config = STRICT
    path: str = Field(min_length=1)
    verified: bool
    evidence: str | None = None
    sessions: list[Annotated[int, Field(ge=1)]] = Field(default_factory=list)

    @field_validator("path", "evidence")
    @classmethod
    def _single_line(cls, value: str | None) -> str | None:
        return None if value is None else one_line(value) or None


class Todo(BaseModel):
    """One todo item as the agent's todo tool last recorded it."""

    model_config = STRICT
    content: str
    status: TodoStatus = "pending"
    id: str | None = None
    parent_id: str | None = None
    #: What keeps a ``blocked`` todo from going on, in the agent's words.
    blocker: str | None = None

    @field_validator("content", "id", "parent_id", "blocker")
    @classmethod
    def _single_line(cls, value: str | None) -> str | None:
        return None if value is None else one_line(value)


class CoverageCheck(BaseModel):
    """How many items of one kind, found by an extraction independent of the writer's, the
    artifact holds (e.g. files 17/17). ``referenced`` of the covered ones are not written out
    but named where they can be read (an "omitted" line); ``missing`` names the first of those
    neither held nor named."""

    model_config = STRICT
    kind: CheckKind
    covered: int = Field(ge=0)
    total: int = Field(ge=0)
    referenced: int = Field(0, ge=0)
    missing: list[str] = Field(default_factory=list)

    @field_validator("missing")
    @classmethod
    def _single_lines(cls, value: list[str]) -> list[str]:
        return [one_line(v) for v in value]

    def __str__(self) -> str:
        line = f"{self.kind} {self.covered}/{self.total}"
        if self.referenced:
            line += f", {self.referenced} by reference"
        if self.missing:
            line += ", missing: " + "; ".join(self.missing)
        return line


Utilization = Annotated[float, Field(ge=0, allow_inf_nan=False)]
