"""generate_handoff: structured, repaired or facts-only, and never garbage."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from pydantic import Field

from agent_core.errors import HandoffCancelled, HandoffGenerationError, NothingToHandOff
from agent_core.handoff._artifact import HandoffArtifact
from agent_core.handoff._facts import extract_facts
from agent_core.handoff._generation import HandoffDraft, generate_handoff

Reply = str | AIMessage | BaseException


class FunctionModel(BaseChatModel):
    """Replies with ``fn(prompt, call_number)``; an exception is raised instead of returned."""

    fn: Callable[[list[BaseMessage], int], Reply]
    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "function"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        self.prompts.append(list(messages))
        reply = self.fn(messages, len(self.prompts))
        if isinstance(reply, BaseException):
            raise reply
        message = reply if isinstance(reply, AIMessage) else AIMessage(reply)
        return ChatResult(generations=[ChatGeneration(message=message)])


def replies(*items: Reply) -> FunctionModel:
    return FunctionModel(fn=lambda _prompt, n: items[min(n, len(items)) - 1])


def words(text: str) -> int:
    return len(text.split()) + 1


MESSAGES = [
    HumanMessage("Build the auth system"),
    AIMessage(
        "",
        tool_calls=[
            {"name": "write_file", "id": "1", "args": {"path": "/repo/auth.py", "content": "x"}}
        ],
    ),
    ToolMessage("ok", tool_call_id="1"),
    AIMessage("Auth is written."),
]
FACTS = extract_facts(MESSAGES)
META = {
    "session_number": 2,
    "trigger": "auto",
    "utilization": 0.81,
    "model_name": "gpt-4",
    "count_tokens": words,
}
COMPLETE = {
    "completed_work": ["Wrote auth.py"],
    "in_progress": [],
    "remaining_tasks": ["Tests"],
    "key_decisions": ["JWT"],
    "files_modified": ["auth.py", "ghost.py"],
    "current_state_summary": "Auth written, untested.",
}

SPEC_MARKDOWN = """## Completed Work
- Built user authentication
- Created database schema
## In Progress
- Building API endpoints for /users
## Remaining Tasks
- Frontend components
- Tests
## Key Decisions
- Using JWT for auth tokens
## Files Modified
- backend/src/routes/auth.py
## State Summary
Auth system is functional, API layer is 50% complete."""


async def test_spec_example_from_plain_markdown_answer() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(SPEC_MARKDOWN)]))
    result = await generate_handoff(model, MESSAGES[:1] + MESSAGES[3:], **META)
    a = result.artifact
    assert result.source == "model" and result.reasks == 0
    assert a.completed_work == ["Built user authentication", "Created database schema"]
    assert a.in_progress == ["Building API endpoints for /users"]
    assert a.remaining_tasks == ["Frontend components", "Tests"]
    assert a.key_decisions == ["Using JWT for auth tokens"]
    assert [(f.path, f.verified) for f in a.files_modified] == [
        ("backend/src/routes/auth.py", False)
    ]
    assert a.current_state_summary == (
        "1 file changed; no check failing. Auth system is functional, API layer is 50% complete."
    )


async def test_grounded_files_are_authoritative() -> None:
    claims = dict(COMPLETE, files_modified=["ghost.py"])
    result = await generate_handoff(replies(json.dumps(claims)), MESSAGES, facts=FACTS, **META)
    files = {f.path: f.verified for f in result.artifact.files_modified}
    assert files == {"auth.py": True, "ghost.py": False}


class StructuredModel(FunctionModel):
    """Supports structured output by returning a parsed draft with usage metadata."""

    def with_structured_output(self, schema, *, include_raw=False, **kwargs):
        raw = AIMessage(
            "", usage_metadata={"input_tokens": 900, "output_tokens": 70, "total_tokens": 970}
        )
        return RunnableLambda(
            lambda _: {"raw": raw, "parsed": schema(**COMPLETE), "parsing_error": None}
        )


async def test_structured_output_and_reported_usage() -> None:
    # An overflow reset cannot repeat the agent's request: the transcript goes out, structured.
    model = StructuredModel(fn=lambda *_: AssertionError("plain call not expected"))
    result = await generate_handoff(model, MESSAGES, **{**META, "trigger": "overflow"})
    assert result.source == "model"
    assert (result.prompt_tokens, result.output_tokens) == (900, 70)
    assert result.artifact.remaining_tasks == ["Tests"]
    assert HandoffDraft.model_json_schema()["additionalProperties"] is False


async def test_one_reask_fills_missing_sections() -> None:
    partial = json.dumps({"completed_work": ["Wrote auth.py"]})
    rest = json.dumps({"remaining_tasks": ["Tests"], "current_state_summary": "Untested."})
    model = replies(partial, rest)
    result = await generate_handoff(model, MESSAGES, **META)
    assert (result.source, result.reasks) == ("repaired", 1)
    assert result.artifact.completed_work == ["Wrote auth.py"]
    assert result.artifact.remaining_tasks == ["Tests"]
    assert "remaining_tasks" in model.prompts[1][-1].text
    assert len(model.prompts) == 2


async def test_garbage_twice_gives_facts_only() -> None:
    model = replies("I cannot do that.", "Still no.")
    result = await generate_handoff(model, MESSAGES, **META)
    assert result.source == "facts_only" and result.reasks == 1
    assert [f.path for f in result.artifact.files_modified] == ["auth.py"]
    assert "I cannot" not in result.artifact.to_markdown()
    # What the evidence says, once: nothing invented to fill a section.
    assert result.artifact.goal == "Build the auth system"
    assert result.artifact.current_state_summary == "1 file changed; no check failing."


async def test_exception_text_never_enters_the_artifact() -> None:
    model = replies(RuntimeError("SECRET-PROVIDER-ERROR 429"))
    result = await generate_handoff(model, MESSAGES, **META)
    assert result.source == "facts_only"
    assert "SECRET" not in result.artifact.to_markdown()


async def test_focus_is_in_prompt_and_on_artifact() -> None:
    model = replies(json.dumps(COMPLETE))
    result = await generate_handoff(model, MESSAGES, focus="the login bug", **META)
    assert result.artifact.focus == "the login bug"
    assert "the login bug" in model.prompts[0][-1].text


async def test_newest_messages_are_kept_when_the_transcript_is_long() -> None:
    history = [HumanMessage("ORIGINAL TASK")] + [
        AIMessage(f"step {i} " + "word " * 50) for i in range(200)
    ]
    model = replies(json.dumps(COMPLETE))
    # 200 long replies do not fit a 6,000-token window: the transcript goes out instead.
    await generate_handoff(model, history, prompt_budget_tokens=1500, window_tokens=6000, **META)
    prompt = model.prompts[0][1].text
    assert "ORIGINAL TASK" in prompt and "step 199" in prompt and "step 3 " not in prompt


async def test_budget_trims_old_completed_work_before_remaining_tasks() -> None:
    big = dict(
        COMPLETE,
        completed_work=[f"old item {i} " + "x " * 40 for i in range(60)],
        key_decisions=["decision\nwith long detail " + "y " * 200],
        remaining_tasks=["Tests", "Docs"],
    )
    result = await generate_handoff(replies(json.dumps(big)), MESSAGES, budget_tokens=400, **META)
    a = result.artifact
    assert result.artifact_tokens == words(a.to_markdown()) <= 400
    assert a.remaining_tasks == ["Tests", "Docs"]
    assert a.completed_work[-1].startswith("old item 59")
    assert (
        a.completed_work[0].startswith("(omitted: ")
        and "earlier completed items" in a.completed_work[0]
    )
    assert any(f.path == "auth.py" and f.verified for f in a.files_modified)


async def test_cancel_before_and_during_the_call() -> None:
    cancel = asyncio.Event()
    cancel.set()
    with pytest.raises(HandoffCancelled):
        await generate_handoff(replies("x"), MESSAGES, cancel=cancel, **META)

    class Hanging(FunctionModel):
        async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
            await asyncio.Event().wait()

    cancel = asyncio.Event()
    task = asyncio.ensure_future(
        generate_handoff(Hanging(fn=lambda *_: ""), MESSAGES, cancel=cancel, **META)
    )
    await asyncio.sleep(0)
    cancel.set()
    with pytest.raises(HandoffCancelled):
        await task


async def test_typed_errors() -> None:
    with pytest.raises(NothingToHandOff):
        await generate_handoff(replies("x"), MESSAGES[:1], **dict(META, trigger="manual"))
    with pytest.raises(HandoffGenerationError):
        await generate_handoff(None, MESSAGES, **dict(META, session_number=0))


async def test_no_model_means_facts_only_and_references_are_recorded() -> None:
    previous = HandoffArtifact(session_number=1, trigger="auto", utilization=0.8, model="m")
    result = await generate_handoff(None, MESSAGES, previous=previous, pinned=["PLAN.md"], **META)
    assert result.source == "facts_only" and result.prompt_tokens == 0
    assert result.artifact.previous_handoff == "HANDOFF-1.md"
    assert result.artifact.pinned_files == ["PLAN.md"]


async def test_without_a_model_the_users_latest_request_is_carried_on() -> None:
    # A provider that fails at reset time must not leave the next session without its task.
    messages = [
        HumanMessage(
            "<handoff-context>\nearlier work\n</handoff-context>",
            additional_kwargs={"baton_kind": "handoff"},
        ),
        HumanMessage("Fix the login redirect"),
        AIMessage("Looking at it."),
        HumanMessage("/diff", additional_kwargs={"baton_not_sent": "diff"}),
        HumanMessage("and keep the old URL working too"),
        AIMessage("", tool_calls=[{"name": "read_file", "id": "r", "args": {"path": "urls.py"}}]),
        ToolMessage("urls", tool_call_id="r"),
    ]
    facts = extract_facts(messages)
    assert facts.user_requests == ["Fix the login redirect", "and keep the old URL working too"]
    result = await generate_handoff(None, messages, facts=facts, **META)
    assert result.artifact.in_progress == [
        "Answering the open request “and keep the old URL working too” (in User Messages)",
        "At the cut: last actions: read_file urls.py",
    ]
    assert result.artifact.user_messages == ["[open] and keep the old URL working too"]


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
_drafts = st.fixed_dictionaries({}, optional={k: _json_values for k in COMPLETE})
_outputs = st.one_of(
    _drafts.map(json.dumps),
    _drafts.map(lambda d: json.dumps(d)[: max(1, len(json.dumps(d)) // 2)]),  # truncated
    st.text(max_size=200),
    st.just(""),
    st.just("## Completed Work\n" + "huge " * 20_000),
    st.builds(lambda d: f"```json\n{json.dumps(d)}\n```", _drafts),
    st.sampled_from([RuntimeError("BOOM-TEXT"), ValueError("BOOM-TEXT"), TimeoutError()]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=_outputs, second=_outputs)
def test_fuzzed_model_outputs_give_a_valid_artifact(first: Reply, second: Reply) -> None:
    result = asyncio.run(
        generate_handoff(replies(first, second), MESSAGES, budget_tokens=1500, **META)
    )
    markdown = result.artifact.to_markdown()
    assert HandoffArtifact.from_markdown(markdown) == result.artifact.shown()
    assert "BOOM-TEXT" not in markdown
    assert result.artifact_tokens <= 1500
    assert result.artifact.goal == "Build the auth system"
    assert any(f.path == "auth.py" and f.verified for f in result.artifact.files_modified)
