"""From the model's draft to the artifact handed on (:func:`assemble`): its gaps filled from
the facts, its claims checked against the tools' evidence, the work state and the user's own
words, merged into the previous handoff, every grounded item merged in, and its state line
told truly. Fitting the budget and the coverage check stay with the caller.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent_core.handoff._agreement import agree_with_evidence, drop_ungrounded
from agent_core.handoff._artifact import FileChange, HandoffArtifact, HandoffTrigger
from agent_core.handoff._facts import GroundedFacts
from agent_core.handoff._facts_only import Locate, facts_only_fields
from agent_core.handoff._merge import ground, merge_previous
from agent_core.handoff._state_line import one_state_per_request, truthful_state
from agent_core.handoff._work_agreement import agree_on_work


def tool_outputs(messages: Sequence[BaseMessage]) -> list[str]:
    """What tools returned: tool messages, and tool results inside user-role messages."""
    out = []
    for message in messages:
        if isinstance(message, ToolMessage):
            out.append(message.text)
        elif isinstance(message, HumanMessage) and isinstance(message.content, list):
            out += [
                str(block.get("content"))
                for block in message.content
                if isinstance(block, dict) and block.get("type") == "tool_result"
            ]
    return out


def spoken(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages a person or the agent wrote: no tool output."""
    return [
        m
        for m in messages
        if isinstance(m, AIMessage)
        or (
            isinstance(m, HumanMessage)
            and not (tool_outputs([m]) or m.additional_kwargs.get("not_user"))
        )
    ]


def _quoted(text: str, messages: Sequence[BaseMessage]) -> bool:
    """Whether ``text`` is a verbatim quote of one of ``messages``."""
    needle = " ".join(text.split())
    return bool(needle) and any(needle in " ".join(m.text.split()) for m in messages)


def assemble(
    draft: dict,
    facts: GroundedFacts,
    messages: Sequence[BaseMessage],
    *,
    focus: str | None,
    session_number: int,
    trigger: HandoffTrigger,
    utilization: float,
    model_name: str,
    previous: HandoffArtifact | None,
    pinned: Sequence[str],
    locate: Locate | None = None,
) -> HandoffArtifact:
    fallback = facts_only_fields(
        facts,
        session_number=session_number,
        utilization=utilization,
        first_session=previous is None,
        locate=locate,
    )
    goal_words = previous.goal if previous is not None and previous.goal else fallback["goal"]
    fields = {
        key: draft.get(key) or fallback[key]
        for key in (
            "completed_work",
            "in_progress",
            "remaining_tasks",
            "key_decisions",
            "errors_and_fixes",
            "current_state_summary",
        )
    }
    disagreements: list[str] = []
    said = [HumanMessage(r) for r in facts.user_requests]
    if draft:  # a model wrote it: checked against the same evidence
        # What the model repeated from tool output or claimed for the user goes first; then
        # the evidence's own items are added where the model missed them (an item under way
        # whose title a plan file holds is evidence, not an echo of the tool).
        users = [*facts.user_requests, *([previous.goal] if previous else [])]
        fields, removed = drop_ungrounded(fields, users, tool_outputs(messages))
        fields, disagreements = agree_with_evidence(fields, facts, goal_words, draft)
        disagreements = [*removed, *disagreements]
    # The user's own words come from the transcript, never from the model; a constraint or a
    # next step the model offers is kept only when it quotes what the user or the agent said
    # (never a tool's output: that is data, not a step to take).
    quoted = [c for c in draft.get("constraints") or [] if _quoted(c, said)]
    shown = " ".join([fallback["goal"], *fallback["user_messages"]])
    quoted = [c for c in quoted if " ".join(c.split()) not in " ".join(shown.split())]
    next_step = draft.get("next_step")
    next_step = (
        next_step
        if isinstance(next_step, str) and _quoted(next_step, spoken(messages))
        else fallback["next_step"]
    )
    if draft:  # the work state the model wrote, checked against the record's
        remaining, next_step, more = agree_on_work(
            list(fields["remaining_tasks"]), next_step, facts.progress, fallback
        )
        fields["remaining_tasks"], disagreements = remaining, [*disagreements, *more]
    new_goal = draft.get("new_goal")
    # The goal changes only when the model quotes the user replacing it in this session.
    goal_changed = isinstance(new_goal, str) and _quoted(new_goal, said)
    current = HandoffArtifact(
        session_number=session_number,
        trigger=trigger,
        utilization=utilization,
        model=model_name,
        focus=focus or None,
        goal=new_goal if goal_changed and isinstance(new_goal, str) else fallback["goal"],
        constraints=list(dict.fromkeys([*fallback["constraints"], *quoted])),
        user_messages=fallback["user_messages"],
        next_step=next_step,
        files_modified=claimed_files(facts, draft.get("files_modified") or []),
        files_read=fallback["files_read"],
        open_todos=facts.open_todos,
        pinned_files=list(pinned),
        previous_handoff=(f"HANDOFF-{previous.session_number}.md" if previous else None),
        disagreements=disagreements,
        **fields,
    )
    merged = merge_previous(
        current,
        previous,
        todos_recorded=bool(facts.todos),
        goal_changed=goal_changed,
        replied=facts.replies > 0,
        commands=facts.commands,
    )
    return told_truly(ground(merged, facts, pinned, locate), wrote=bool(draft))


def told_truly(artifact: HandoffArtifact, *, wrote: bool) -> HandoffArtifact:
    """The artifact with each request in one state and its state line counted from its own
    lists; what a model (``wrote``) said otherwise is recorded as corrected."""
    completed, both = one_state_per_request(artifact.model_dump())
    fields = {**artifact.model_dump(), "completed_work": completed}
    summary, dropped = truthful_state(fields, artifact.current_state_summary)
    corrections = [
        f"Completed work: removed “{item[:160]}”: the request is still open" for item in both
    ]
    if wrote:
        corrections += [f"State: “{s[:160]}” replaced by the count from the lists" for s in dropped]
    return artifact.model_copy(
        update={
            "completed_work": completed,
            "current_state_summary": summary,
            "disagreements": [*artifact.disagreements, *corrections],
        }
    )


def claimed_files(facts: GroundedFacts, claimed: Sequence[str]) -> list[FileChange]:
    """Grounded files first (authoritative); claims without tool evidence kept as unverified."""
    known = {c.path for c in facts.files_modified} | set(facts.scratch_files)
    files = list(facts.files_modified)
    for path in dict.fromkeys(p.strip().strip("`").removeprefix("./") for p in claimed):
        if path and path not in known and " " not in path.strip():
            files.append(FileChange(path=path, verified=False))
            known.add(path)
    return files
