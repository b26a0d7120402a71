"""Ask a model for the handoff, and never hand on garbage.

``generate_handoff`` sends the agent's own request with the handoff instruction appended (see
:mod:`agent_core.handoff._request`), or, when that cannot fit, a rendered transcript; tries
structured output there, falls back to a plain call parsed as JSON or markdown sections;
re-asks once when required sections are missing; merges the draft into the previous handoff
(anchored), merges in every grounded item, fits the budget and records the coverage check.
When the model fails entirely the artifact is built from the facts alone. Exception text never
enters an artifact.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ConfigDict, Field

from agent_core.errors import HandoffCancelled, HandoffGenerationError, NothingToHandOff
from agent_core.handoff._artifact import HandoffArtifact, HandoffTrigger
from agent_core.handoff._assembly import assemble
from agent_core.handoff._budget import fit_to_budget
from agent_core.handoff._draft import REQUIRED_FIELDS, draft_from_text, draft_from_value
from agent_core.handoff._facts import GroundedFacts, extract_facts
from agent_core.handoff._facts_only import Locate, facts_only_fields
from agent_core.handoff._inventory import Inventory, check, take_inventory
from agent_core.handoff._merge import with_checks
from agent_core.handoff._prompt import TokenCount
from agent_core.handoff._request import (
    HANDOFF_INSTRUCTION,
    HANDOFF_MARKER,
    HandoffDraft,
    appended_request,
    transcript_request,
)

__all__ = [
    "HandoffDraft",
    "HandoffResult",
    "generate_handoff",
    "agenerate_handoff",
    "HANDOFF_INSTRUCTION",
    "fit_to_budget",
    "facts_only_fields",
]

log = logging.getLogger(__name__)

_REASK = (
    HANDOFF_MARKER
    + "\n"
    + (
        "Your handoff is missing or has empty sections: {missing}. Answer again with one JSON "
        "object containing all keys (completed_work, in_progress, next_step, remaining_tasks, "
        "key_decisions, constraints, errors_and_fixes, files_modified, current_state_summary)."
    )
)
#: Tokens kept free for the handoff answer when deciding whether the request fits (a tenth
#: of a smaller window: a reset at 80% leaves a fifth of it).
OUTPUT_RESERVE_TOKENS = 4096


def _reserve(window_tokens: int) -> int:
    return min(OUTPUT_RESERVE_TOKENS, window_tokens // 10)


#: How the handoff was asked for: appended to the session, over a transcript of it, or not.
HandoffRequest = Literal["appended", "transcript", "none"]


class HandoffResult(BaseModel):
    """The artifact plus how it was obtained and what it cost."""

    model_config = ConfigDict(extra="forbid")
    artifact: HandoffArtifact
    source: Literal["model", "repaired", "facts_only"]
    request: HandoffRequest = "none"
    prompt_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    reasks: int = Field(ge=0)
    artifact_tokens: int = Field(ge=0)


def _default_counter() -> TokenCount:
    try:
        from agent_core.accounting._tokens import TokenCounter
    except ImportError:  # only while tokens.py is not available; ~4 characters a token
        return lambda text: len(text) // 4 + 1
    return TokenCounter(model="gpt-4").count_text


def _remembering(count: TokenCount) -> TokenCount:
    """``count`` that counts each text once: one handoff counts the same texts again and
    again (its request in each ask and re-ask, the artifact's sections while fitting). Kept
    for one handoff, so it holds nothing the handoff does not."""
    seen: dict[str, int] = {}

    def counted(text: str) -> int:
        tokens = seen.get(text)
        if tokens is None:
            tokens = seen[text] = count(text)
        return tokens

    return counted


class _Calls:
    """Model calls with cancellation and token accounting."""

    def __init__(
        self,
        model: BaseChatModel,
        count: TokenCount,
        cancel: asyncio.Event | None,
        tools: Sequence[Any] = (),
        required: Sequence[str] = REQUIRED_FIELDS,
    ):
        self.model, self.count, self.cancel, self.tools = model, count, cancel, list(tools)
        self.required = tuple(required)
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
        self.prompt_tokens += usage.get("input_tokens") or sum(self.count(m.text) for m in prompt)
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

    async def plain(self, prompt: list[BaseMessage], tools: Sequence[Any] = ()) -> tuple[dict, str]:
        """A plain call; with ``tools`` bound exactly as the agent binds them (cache-friendly)."""
        runnable = self.model.bind_tools(list(tools)) if tools else self.model
        reply = await self._await(runnable.ainvoke(prompt))
        self._account(prompt, reply)
        text = reply.text if isinstance(reply, AIMessage) else str(getattr(reply, "content", ""))
        return draft_from_text(text), text


def _missing(draft: dict, required: Sequence[str] = REQUIRED_FIELDS) -> list[str]:
    return [name for name in required if not draft.get(name)]


def _combine(first: dict, second: dict) -> dict:
    # The re-ask answer wins field by field; what it left empty keeps the first answer's value.
    return {key: second.get(key) or first.get(key) for key in {*first, *second}}


async def _structured_first(
    calls: _Calls, prompt: list[BaseMessage], method: str | None
) -> tuple[dict, str]:
    try:
        draft = await calls.structured(prompt, method)
    except HandoffCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. no tool support; the plain call may still work
        log.info("structured handoff output failed (%s); asking in plain text", type(exc).__name__)
        draft = None
    if draft and any(draft.values()):
        return draft, ""
    return await calls.plain(prompt)


async def _complete(
    calls: _Calls, prompt: list[BaseMessage], draft: dict, text: str, tools: Sequence[Any] = ()
) -> tuple[dict, int]:
    """Re-ask once, in the same conversation, for the sections still missing."""
    if not (missing := _missing(draft, calls.required)):
        return draft, 0
    reask = [
        *prompt,
        AIMessage(text or json.dumps(draft, default=str)),
        HumanMessage(_REASK.format(missing=", ".join(missing))),
    ]
    try:
        second, _ = await calls.plain(reask, tools=tools)
    except HandoffCancelled:
        raise
    except Exception:  # noqa: BLE001 - keep the partial first answer, repaired from facts
        second = {}
    return _combine(draft, second), 1


async def _ask(
    calls: _Calls,
    appended: list[BaseMessage] | None,
    fallback: list[BaseMessage],
    method: str | None,
) -> tuple[dict, int, bool, HandoffRequest]:
    """The model's draft (possibly partial), re-asks, whether it failed, the request used."""
    try:
        if appended is not None:
            try:
                draft, text = await calls.plain(appended, tools=calls.tools)
            except HandoffCancelled:
                raise
            except Exception as exc:  # noqa: BLE001 - e.g. the request did not fit after all
                log.info(
                    "the appended handoff request failed (%s); sending a transcript",
                    type(exc).__name__,
                )
                draft, text = {}, ""
            if any(draft.values()):
                draft, reasks = await _complete(calls, appended, draft, text, calls.tools)
                return draft, reasks, False, "appended"
        draft, text = await _structured_first(calls, fallback, method)
        draft, reasks = await _complete(calls, fallback, draft, text)
        return draft, reasks, False, "transcript"
    except HandoffCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - any provider failure leads to facts-only
        # The exception is logged by type only and never copied into the artifact.
        log.warning(
            "handoff model call failed (%s); using a facts-only handoff", type(exc).__name__
        )
        return {}, 0, True, "none"


def _fits(
    request: list[BaseMessage],
    tools: Sequence[Any],
    count: TokenCount,
    window_tokens: int | None,
    trigger: HandoffTrigger,
) -> bool:
    if trigger == "overflow":
        return False  # the provider already refused this request as too long
    if window_tokens is None:
        return True
    schemas = json.dumps([getattr(t, "name", str(t)) for t in tools])
    used = sum(count(m.text) + 4 for m in request) + count(schemas)
    return used + _reserve(window_tokens) <= window_tokens


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
    prompt_budget_tokens: int | None = None,
    structured_method: str | None = None,
    required: Sequence[str] = REQUIRED_FIELDS,
    system_prompt: str | None = None,
    tools: Sequence[Any] = (),
    window_tokens: int | None = None,
    inventory: Inventory | None = None,
    locate: Locate | None = None,
) -> HandoffResult:
    """Produce the handoff artifact that ends session ``session_number``.

    ``messages``, ``system_prompt`` and ``tools`` are the agent's own request: the handoff call
    repeats it and appends the instruction. ``window_tokens`` decides whether that fits; when
    not, the fallback transcript is sized to ``prompt_budget_tokens`` (default: the window
    minus the answer's reserve). ``required``: the sections whose absence is worth a re-ask
    (the whole handoff's by default). ``previous`` is the handoff this session started from: the
    new artifact is it, updated. ``model=None`` skips the model (facts-only). Raises
    ``HandoffCancelled`` when ``cancel`` is set, ``NothingToHandOff`` for a manual handoff of
    fewer than two messages, and ``HandoffGenerationError`` only when not even a facts-only
    artifact can be built.
    """
    if trigger == "manual" and len(messages) < 2:
        raise NothingToHandOff()
    count = _remembering(count_tokens or _default_counter())
    facts = facts if facts is not None else extract_facts(messages)
    calls = _Calls(model, count, cancel, tools, required) if model is not None else None
    used: HandoffRequest = "none"
    draft, reasks, failed = {}, 0, True
    if calls is not None:
        appended = appended_request(messages, system_prompt, focus)
        if not _fits(appended, tools, count, window_tokens, trigger):
            appended = None
        room = prompt_budget_tokens or (
            max(2000, window_tokens - _reserve(window_tokens)) if window_tokens else 8000
        )
        fallback = transcript_request(messages, facts, focus, previous, count, room)
        draft, reasks, failed, used = await _ask(calls, appended, fallback, structured_method)
    if cancel is not None and cancel.is_set():
        raise HandoffCancelled("The handoff was cancelled; the session is unchanged.")
    has_content = any(draft.get(name) for name in (*REQUIRED_FIELDS, "in_progress"))
    source = (
        "facts_only"
        if failed or not has_content
        else "model"
        if reasks == 0 and not _missing(draft, required)
        else "repaired"
    )
    inventory = inventory if inventory is not None else take_inventory(messages)
    try:
        artifact = assemble(
            draft if source != "facts_only" else {},
            facts,
            messages,
            focus=focus,
            session_number=session_number,
            trigger=trigger,
            utilization=utilization,
            model_name=model_name,
            previous=previous,
            pinned=pinned,
            locate=locate,
        )

        def checked(a: HandoffArtifact) -> HandoffArtifact:
            return with_checks(
                a, check(a, inventory, previous=previous, pinned=pinned, locate=locate)
            )

        # Fitted with the checks in place (their size barely depends on the numbers), then
        # checked again: the check describes the artifact as handed on.
        artifact, _ = fit_to_budget(checked(artifact), max(budget_tokens - 4, 1), count)
        artifact = checked(artifact)
        tokens = count(artifact.to_markdown())
        if tokens > budget_tokens:  # the final check came out longer than the fitted one
            artifact, _ = fit_to_budget(artifact, max(budget_tokens - 4, 1), count)
            artifact = checked(artifact)
            tokens = count(artifact.to_markdown())
    except ValueError as exc:
        raise HandoffGenerationError(
            f"Could not build a handoff artifact for session {session_number}: "
            "check session_number, trigger and utilization"
        ) from exc
    return HandoffResult(
        artifact=artifact,
        source=source,
        reasks=reasks,
        artifact_tokens=tokens,
        request=used if source != "facts_only" or not failed else "none",
        prompt_tokens=calls.prompt_tokens if calls else 0,
        output_tokens=calls.output_tokens if calls else 0,
    )


agenerate_handoff = generate_handoff
