"""The handoff artifact: what one session leaves for the next after a context reset.

``HandoffArtifact`` is the validated shape; ``to_markdown``/``from_markdown`` give the
``HANDOFF-{n}.md`` file (exact round-trip), and ``artifact_to_json``/``artifact_from_json`` are the
one JSON adapter used for storage and events.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from pydantic import AwareDatetime, BaseModel, Field, TypeAdapter, field_validator

from agent_core.handoff._fields import (
    STRICT,
    CoverageCheck,
    FileChange,
    HandoffTrigger,
    Todo,
    Utilization,
    one_line,
)
from agent_core.handoff._markdown import META_FIELDS, grouped, parse_markdown, render_markdown

__all__ = [
    "CoverageCheck",
    "FileChange",
    "Todo",
    "HandoffArtifact",
    "HandoffTrigger",
    "artifact_to_json",
    "artifact_from_json",
    "handoff_filename",
    "handoff_context_message",
]


class HandoffArtifact(BaseModel):
    """Structured state handed from session ``session_number`` to the next one."""

    model_config = STRICT
    session_number: int = Field(ge=1)
    trigger: HandoffTrigger
    utilization: Utilization
    model: str
    created_at: AwareDatetime = Field(default_factory=lambda: datetime.now(UTC))
    focus: str | None = None
    # v2: the thread's own words, carried through every reset (absent from v1 artifacts).
    goal: str = ""
    constraints: list[str] = Field(default_factory=list)
    user_messages: list[str] = Field(default_factory=list)
    completed_work: list[str] = Field(default_factory=list)
    in_progress: list[str] = Field(default_factory=list)
    next_step: str = ""
    remaining_tasks: list[str] = Field(default_factory=list)
    key_decisions: list[str] = Field(default_factory=list)
    errors_and_fixes: list[str] = Field(default_factory=list)
    files_modified: list[FileChange] = Field(default_factory=list)
    files_read: list[str] = Field(default_factory=list)
    current_state_summary: str = ""
    open_todos: list[Todo] = Field(default_factory=list)
    pinned_files: list[str] = Field(default_factory=list)
    checks: list[CoverageCheck] = Field(default_factory=list)
    previous_handoff: str | None = None
    #: Where a model-written handoff disagreed with the evidence (kept for the card; the
    #: evidence's items were added to the sections).
    disagreements: list[str] = Field(default_factory=list)

    @field_validator("pinned_files", "files_read")
    @classmethod
    def _paths_single_line(cls, value: list[str]) -> list[str]:
        return [p for p in (one_line(v) for v in value) if p]

    def to_markdown(self) -> str:
        """Render as ``HANDOFF-{n}.md``: what the next session reads. ``from_markdown`` reads
        it back as :meth:`shown` (the markdown leaves out what only the record keeps)."""
        meta = self.model_dump(mode="json", include=set(META_FIELDS))
        title = f"# Handoff: session {self.session_number} ({self.trigger}, {self.utilization:.0%} of context, {self.model})"
        return render_markdown(one_line(title), meta, lambda name: getattr(self, name))

    @classmethod
    def from_markdown(cls, text: str) -> HandoffArtifact:
        """Parse a file written by ``to_markdown``. Raises ``ValueError`` on other text."""
        return cls.model_validate(parse_markdown(text))

    def shown(self) -> HandoffArtifact:
        """This artifact as its markdown shows it: without the tool evidence of files, todo
        ids (the ``<todo-state>`` block carries them), checks of nothing, disagreements;
        files in their directory groups, each file's sessions in order."""
        return self.model_copy(
            update={
                "files_modified": grouped(
                    [
                        f.model_copy(update={"evidence": None, "sessions": sorted(set(f.sessions))})
                        for f in self.files_modified
                    ]
                ),
                "files_read": [
                    f.path
                    for f in grouped([FileChange(path=p, verified=True) for p in self.files_read])
                ],
                "open_todos": [
                    t.model_copy(update={"id": None, "parent_id": None}) for t in self.open_todos
                ],
                "checks": [c for c in self.checks if c.total],
                "disagreements": [],
            }
        )


_ADAPTER = TypeAdapter(HandoffArtifact)


def artifact_to_json(artifact: HandoffArtifact) -> str:
    """The artifact as JSON (storage, events)."""
    return _ADAPTER.dump_json(artifact).decode()


def artifact_from_json(data: str | bytes) -> HandoffArtifact:
    """Validate JSON produced by ``artifact_to_json``."""
    return _ADAPTER.validate_json(data)


def handoff_filename(session_number: int) -> str:
    """The file name an artifact of this session is stored under."""
    return f"HANDOFF-{session_number}.md"


_TAGGED = re.compile(r"^\[(\d+:\d+)?(?: ?(?:queued|open|×\d+))*\] ")


def _legend(artifact: HandoffArtifact) -> str:
    """What the tags before user messages mean, when there are any."""
    tags = [m.group(0) for m in map(_TAGGED.match, artifact.user_messages) if m]
    if not tags:
        return ""
    parts = []
    if any(re.search(r"\d+:\d+", t) for t in tags):
        parts.append("[S:M] is message M of session S (read_history(session=S, start=M) shows it)")
    if any("queued" in t for t in tags):
        parts.append("“queued”: typed while the agent worked")
    if any("open" in t for t in tags):
        parts.append("“open”: not answered yet")
    if any("×" in t for t in tags):
        parts.append("×N: sent N times")
    return "In User Messages, " + "; ".join(parts) + ".\n\n"


def handoff_context_message(artifact: HandoffArtifact, *, history: str = "") -> str:
    """The text that opens the next session: the artifact plus an instruction to continue,
    and ``history`` (which stored session holds what, how to reread it) when given."""
    return (
        "<handoff-context>\n"
        f"{artifact.to_markdown()}"
        "</handoff-context>\n\n"
        + _legend(artifact)
        + (f"{history}\n\n" if history else "")
        + f"This is a fresh session continuing the work of session {artifact.session_number}. "
        "Continue from the handoff above: do not redo completed work, resume what is in "
        "progress, then work through the remaining tasks."
    )
