"""Ask a model for the handoff, and never hand on garbage.

``generate_handoff`` prompts with a short instruction, the newest part of the transcript that fits
the prompt budget and the grounded facts; tries structured output, falls back to a plain call
parsed as JSON or markdown sections; re-asks once when required sections are missing; merges the
grounded facts (authoritative); and, when the model fails entirely, builds a facts-only artifact.
Exception text never enters an artifact. The result fits ``budget_tokens``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from agent_core.errors import HandoffCancelled, HandoffGenerationError, NothingToHandOff
from agent_core.handoff.artifact import FileChange, HandoffArtifact, HandoffTrigger
from agent_core.handoff.draft import REQUIRED_FIELDS, draft_from_text, draft_from_value
from agent_core.handoff.facts import GroundedFacts, extract_facts
from agent_core.handoff.prompt import TokenCount, render_facts, render_transcript, squeeze

__all__ = ["HandoffDraft", "HandoffResult", "generate_handoff", "agenerate_handoff",
           "HANDOFF_INSTRUCTION"]

log = logging.getLogger(__name__)

HANDOFF_INSTRUCTION = """\
You are ending a work session. Write a handoff note so that a fresh session, which cannot see \
this conversation, can continue the work without redoing anything.
Answer with one JSON object with these keys:
- completed_work: list of finished items (specific: files, functions, commands, results)
- in_progress: list of items started but not finished
- remaining_tasks: list of what is still to do, most important first
- key_decisions: list of decisions and their reasons
- files_modified: list of file paths changed in this session
- current_state_summary: 2-4 sentences on where things stand (what works, what is broken)
Be concise and concrete. Do not invent work. The tool evidence given is authoritative."""

_REASK = (
    "Your handoff is missing or has empty sections: {missing}. Answer again with one JSON "
    "object containing all keys (completed_work, in_progress, remaining_tasks, key_decisions, "
    "files_modified, current_state_summary)."
)


class HandoffDraft(BaseModel):
    """What the model is asked to fill in (the schema for structured output)."""

    model_config = ConfigDict(extra="forbid")
    completed_work: list[str] = Field(description="Finished items, specific and concise")
    in_progress: list[str] = Field(description="Items started but not finished")
    remaining_tasks: list[str] = Field(description="What is still to do, most important first")
    key_decisions: list[str] = Field(description="Decisions made and why")
    files_modified: list[str] = Field(description="Paths of files changed in this session")
    current_state_summary: str = Field(description="2-4 sentences on where things stand")


class HandoffResult(BaseModel):
    """The artifact plus how it was obtained and what it cost."""

    model_config = ConfigDict(extra="forbid")
    artifact: HandoffArtifact
    source: Literal["model", "repaired", "facts_only"]
    prompt_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    reasks: int = Field(ge=0)
    artifact_tokens: int = Field(ge=0)




def _default_counter() -> TokenCount:
    try:
        from agent_core.tokens import TokenCounter
    except ImportError:  # only while tokens.py is not available; ~4 characters a token
        return lambda text: len(text) // 4 + 1
    return TokenCounter(model="gpt-4").count_text


class _Calls:
    """Model calls with cancellation and token accounting."""

    def __init__(self, model: BaseChatModel, count: TokenCount, cancel: asyncio.Event | None):
        self.model, self.count, self.cancel = model, count, cancel
        self.prompt_tokens = 0
        self.output_tokens = 0

    async def _await(self, coro: Any) -> Any:
        if self.cancel is None:
            return await coro
        if self.cancel.is_set():
            coro.close()
            raise HandoffCancelled("The handoff was cancelled; the session is unchanged.")
        task = asyncio.ensure_future(coro)
        waiter = asyncio.ensure_future(self.cancel.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if self.cancel.is_set():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            raise HandoffCancelled("The handoff was cancelled; the session is unchanged.")
        waiter.cancel()
        return task.result()

    def _account(self, prompt: Sequence[BaseMessage], raw: object) -> None:
        usage = getattr(raw, "usage_metadata", None) or {}
        text = raw.text if isinstance(raw, AIMessage) else ""
        if isinstance(raw, AIMessage) and raw.tool_calls:
            text += json.dumps([c["args"] for c in raw.tool_calls], default=str)
        self.prompt_tokens += usage.get("input_tokens") or sum(
            self.count(m.text) for m in prompt)
        self.output_tokens += usage.get("output_tokens") or self.count(text)

    async def structured(self, prompt: list[BaseMessage], method: str | None) -> dict | None:
        """Structured output; None when the model does not support it."""
        kwargs = {"method": method} if method else {}
        try:
            runnable = self.model.with_structured_output(HandoffDraft, include_raw=True, **kwargs)
            out = await self._await(runnable.ainvoke(prompt))
        except NotImplementedError:
            return None
        raw = out.get("raw") if isinstance(out, dict) else None
        self._account(prompt, raw)
        parsed = out.get("parsed") if isinstance(out, dict) else None
        if isinstance(parsed, BaseModel):
            return parsed.model_dump()
        if isinstance(raw, AIMessage) and raw.tool_calls:
            return draft_from_value(raw.tool_calls[0].get("args"))
        return draft_from_text(raw.text) if isinstance(raw, AIMessage) else {}

    async def plain(self, prompt: list[BaseMessage]) -> tuple[dict, str]:
        reply = await self._await(self.model.ainvoke(prompt))
        self._account(prompt, reply)
        text = reply.text if isinstance(reply, AIMessage) else str(getattr(reply, "content", ""))
        return draft_from_text(text), text


def _missing(draft: dict) -> list[str]:
    return [name for name in REQUIRED_FIELDS if not draft.get(name)]


def _combine(first: dict, second: dict) -> dict:
    # The re-ask answer wins field by field; what it left empty keeps the first answer's value.
    return {key: second.get(key) or first.get(key) for key in {*first, *second}}


async def _first_answer(calls: _Calls, prompt: list[BaseMessage], method: str | None
                        ) -> tuple[dict, str]:
    try:
        draft = await calls.structured(prompt, method)
    except HandoffCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. no tool support; the plain call may still work
        log.info("structured handoff output failed (%s); asking in plain text",
                 type(exc).__name__)
        draft = None
    if draft and any(draft.values()):
        return draft, ""
    return await calls.plain(prompt)


async def _ask(calls: _Calls, prompt: list[BaseMessage], method: str | None
               ) -> tuple[dict, int, bool]:
    """The model's draft (possibly partial), the number of re-asks, and whether it failed."""
    try:
        draft, text = await _first_answer(calls, prompt, method)
        if not (missing := _missing(draft)):
            return draft, 0, False
        reask = [*prompt, AIMessage(text or json.dumps(draft, default=str)),
                 HumanMessage(_REASK.format(missing=", ".join(missing)))]
        try:
            second, _ = await calls.plain(reask)
        except HandoffCancelled:
            raise
        except Exception:  # noqa: BLE001 - keep the partial first answer, repaired from facts
            second = {}
        return _combine(draft, second), 1, False
    except HandoffCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - any provider failure leads to facts-only
        # The exception is logged by type only and never copied into the artifact.
        log.warning("handoff model call failed (%s); using a facts-only handoff",
                    type(exc).__name__)
        return {}, 0, True


def _build_prompt(messages: Sequence[BaseMessage], facts: GroundedFacts, focus: str | None,
                  previous: HandoffArtifact | None, count: TokenCount,
                  prompt_budget_tokens: int) -> list[BaseMessage]:
    system = HANDOFF_INSTRUCTION
    if focus:
        system += f"\nThe user asked the handoff to focus on: {focus}"
    evidence = render_facts(facts)
    parts = []
    if previous is not None:
        parts.append(f"(This session started from HANDOFF-{previous.session_number}.md.)")
    budget = max(200, prompt_budget_tokens - count(system) - count(evidence))
    parts.append(f"<transcript>\n{render_transcript(messages, count, budget)}\n</transcript>")
    parts.append(f"<tool-evidence>\n{evidence}\n</tool-evidence>")
    return [SystemMessage(system), HumanMessage("\n\n".join(parts))]


async def generate_handoff(
    model: BaseChatModel | None,
    messages: Sequence[BaseMessage],
    *,
    facts: GroundedFacts | None = None,
    focus: str | None = None,
    budget_tokens: int = 1500,
    session_number: int,
    trigger: HandoffTrigger,
    utilization: float,
    model_name: str,
    previous: HandoffArtifact | None = None,
    pinned: Sequence[str] = (),
    cancel: asyncio.Event | None = None,
    count_tokens: TokenCount | None = None,
    prompt_budget_tokens: int = 8000,
    structured_method: str | None = None,
) -> HandoffResult:
    """Produce the handoff artifact that ends session ``session_number``.

    ``model=None`` skips the model (facts-only). Raises ``HandoffCancelled`` when ``cancel`` is
    set, ``NothingToHandOff`` for a manual handoff of fewer than two messages, and
    ``HandoffGenerationError`` only when not even a facts-only artifact can be built.
    """
    if trigger == "manual" and len(messages) < 2:
        raise NothingToHandOff()
    count = count_tokens or _default_counter()
    facts = facts if facts is not None else extract_facts(messages)
    calls = _Calls(model, count, cancel) if model is not None else None
    draft, reasks, failed = {}, 0, True
    if calls is not None:
        prompt = _build_prompt(messages, facts, focus, previous, count, prompt_budget_tokens)
        draft, reasks, failed = await _ask(calls, prompt, structured_method)
    if cancel is not None and cancel.is_set():
        raise HandoffCancelled("The handoff was cancelled; the session is unchanged.")
    has_content = any(draft.get(name) for name in (*REQUIRED_FIELDS, "in_progress"))
    source = ("facts_only" if failed or not has_content
              else "model" if reasks == 0 and not _missing(draft) else "repaired")
    try:
        artifact = _assemble(draft if source != "facts_only" else {}, facts, focus=focus,
                             session_number=session_number, trigger=trigger,
                             utilization=utilization, model_name=model_name,
                             previous=previous, pinned=pinned)
        artifact, tokens = fit_to_budget(artifact, budget_tokens, count)
    except ValueError as exc:
        raise HandoffGenerationError(
            f"Could not build a handoff artifact for session {session_number}: "
            "check session_number, trigger and utilization") from exc
    return HandoffResult(
        artifact=artifact, source=source, reasks=reasks, artifact_tokens=tokens,
        prompt_tokens=calls.prompt_tokens if calls else 0,
        output_tokens=calls.output_tokens if calls else 0,
    )


agenerate_handoff = generate_handoff


def _assemble(draft: dict, facts: GroundedFacts, *, focus: str | None, session_number: int,
              trigger: HandoffTrigger, utilization: float, model_name: str,
              previous: HandoffArtifact | None, pinned: Sequence[str]) -> HandoffArtifact:
    fallback = facts_only_fields(facts, session_number=session_number, utilization=utilization)
    fields = {key: draft.get(key) or fallback[key] for key in fallback}
    return HandoffArtifact(
        session_number=session_number,
        trigger=trigger,
        utilization=utilization,
        model=model_name,
        focus=focus or None,
        files_modified=merge_files(facts, draft.get("files_modified") or []),
        open_todos=facts.open_todos,
        pinned_files=list(pinned),
        previous_handoff=(f"HANDOFF-{previous.session_number}.md" if previous else None),
        **fields,
    )


# --- prompt rendering -------------------------------------------------------------------------

def merge_files(facts: GroundedFacts, claimed: Sequence[str]) -> list[FileChange]:
    """Grounded files first (authoritative); claims without tool evidence kept as unverified."""
    known = {c.path for c in facts.files_modified} | set(facts.scratch_files)
    files = list(facts.files_modified)
    for path in dict.fromkeys(p.strip().strip("`").removeprefix("./") for p in claimed):
        if path and path not in known and " " not in path.strip():
            files.append(FileChange(path=path, verified=False))
            known.add(path)
    return files


def facts_only_fields(facts: GroundedFacts, *, session_number: int, utilization: float
                      ) -> dict[str, Any]:
    """Section contents built from tool evidence alone (fills what the model left empty)."""
    done = [f"Commit {c.sha}: {c.message}" for c in facts.commits]
    if facts.files_modified:
        done.append("Modified " + ", ".join(facts.modified_paths))
    done += [f"Completed todo: {t.content}" for t in facts.todos if t.status == "completed"]
    if facts.test_runs:
        last = facts.test_runs[-1]
        done.append(f"Last test run `{squeeze(last.command, 200)}`: {last.outcome}")
    state = [f"Session {session_number} ended at {utilization:.0%} of the context window."]
    if facts.files_modified:
        state.append(f"{len(facts.files_modified)} file(s) modified according to tool calls.")
    if facts.commands:
        cmd = facts.commands[-1]
        state.append(f"Last command: `{squeeze(cmd.command, 120)}` (exit {cmd.exit_status}).")
    in_progress = [t.content for t in facts.todos if t.status == "in_progress"]
    if not in_progress and facts.user_requests:
        # No todo says what was under way: the user's last request is.
        in_progress = [f"The user's latest request: {squeeze(facts.user_requests[-1], 400)}"]
    return {
        "completed_work": done,
        "in_progress": in_progress,
        "remaining_tasks": [t.content for t in facts.todos if t.status == "pending"],
        "key_decisions": [],
        "current_state_summary": " ".join(state),
    }


_OMITTED_RE = re.compile(r"^\((\d+) earlier completed items omitted\)$")


def _cut(text: str, floor: int = 80) -> str:
    """Shorten long text by a third (never below ``floor`` characters)."""
    if len(text) <= floor:
        return text
    return text[: max(floor, len(text) * 2 // 3)].rstrip() + "…"


def _trim_steps(a: HandoffArtifact) -> HandoffArtifact | None:
    """One step of trimming, least valuable first; None when nothing more can go."""
    decisions = [d.split("\n")[0][:200] for d in a.key_decisions]
    if decisions != a.key_decisions:
        return a.model_copy(update={"key_decisions": decisions})
    done, omitted = a.completed_work, 0
    if done and (marker := _OMITTED_RE.match(done[0])):
        done, omitted = done[1:], int(marker.group(1))
    if len(done) > 1:  # oldest completed items go first, counted in a marker
        return a.model_copy(update={
            "completed_work": [f"({omitted + 1} earlier completed items omitted)", *done[1:]]})
    if a.key_decisions:
        return a.model_copy(update={"key_decisions": a.key_decisions[1:]})
    if unverified := [f for f in a.files_modified if not f.verified]:
        return a.model_copy(update={"files_modified": [f for f in a.files_modified
                                                       if f is not unverified[-1]]})
    for name in ("current_state_summary", "remaining_tasks", "in_progress", "completed_work"):
        value = getattr(a, name)
        shorter = _cut(value) if isinstance(value, str) else [_cut(v) for v in value]
        if shorter != value:
            return a.model_copy(update={name: shorter})
    return None


def fit_to_budget(artifact: HandoffArtifact, budget_tokens: int, count: TokenCount
                  ) -> tuple[HandoffArtifact, int]:
    """Trim until the markdown fits ``budget_tokens``; grounded files are never dropped."""
    tokens = count(artifact.to_markdown())
    while tokens > budget_tokens and (smaller := _trim_steps(artifact)) is not None:
        artifact = HandoffArtifact.model_validate(smaller.model_dump())
        tokens = count(artifact.to_markdown())
    return artifact, tokens
