"""Pure decisions: policy validation, plan() by model family, compaction cut-off safety."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agent_core.accounting._models import model_info
from agent_core.errors import ConfigurationError
from agent_core.policy import make_policy
from agent_core.strategies._cutoff import safe_cutoff
from agent_core.strategies._plan import (
    after_short_compaction,
    confirm_compaction,
    effective_strategy,
    plan,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("anthropic:claude-opus-4-20250514", "compact"),
        ("claude-opus-4-20250514", "compact"),
        ("anthropic:claude-sonnet-4-20250514", "reset"),
        ("claude-sonnet-4-5-20250929", "reset"),
        ("anthropic:claude-3-5-haiku-20241022", "reset"),
        ("some-lab:totally-new-model", "compact"),
    ],
)
def test_auto_resolves_by_model_family_with_and_without_provider_prefix(
    name: str, expected: str
) -> None:
    policy = make_policy()
    assert effective_strategy(policy, model_info(name).default_strategy) == expected


def test_explicit_strategy_wins_over_the_model_default() -> None:
    assert effective_strategy(make_policy(context_strategy="reset"), "compact") == "reset"
    assert effective_strategy(make_policy(context_strategy="compact"), "reset") == "compact"


@pytest.mark.parametrize(
    ("utilization", "action"), [(0.79, "keep"), (0.80, "reset"), (0.95, "reset")]
)
def test_reset_strategy_below_at_above_threshold(utilization: float, action: str) -> None:
    assert (
        plan(utilization, make_policy(context_strategy="reset"), model_default="compact").action
        == action
    )


@pytest.mark.parametrize(
    ("utilization", "action"), [(0.49, "keep"), (0.50, "compact"), (0.9, "compact")]
)
def test_compact_strategy_below_at_above_threshold(utilization: float, action: str) -> None:
    assert (
        plan(utilization, make_policy(context_strategy="compact"), model_default="reset").action
        == action
    )


def test_auto_with_compaction_resets_when_compaction_cannot_get_below_the_reset_threshold() -> None:
    policy = make_policy()  # auto
    decision = plan(0.9, policy, model_default="compact")
    assert decision.action == "compact"
    assert confirm_compaction(decision, projected=0.85, policy=policy).action == "reset"
    assert confirm_compaction(decision, projected=0.40, policy=policy).action == "compact"


def test_an_explicit_compact_policy_never_resets() -> None:
    policy = make_policy(context_strategy="compact")
    decision = plan(0.95, policy, model_default="reset")
    assert confirm_compaction(decision, projected=0.9, policy=policy).action == "compact"


def test_after_a_compaction_fell_short_auto_resets_and_compact_keeps() -> None:
    auto = make_policy(context_strategy="auto", compact_threshold=0.4)
    compact = make_policy(context_strategy="compact", compact_threshold=0.4)
    decision = plan(0.45, auto, model_default="compact")
    assert after_short_compaction(decision, auto).action == "reset"
    assert (
        after_short_compaction(plan(0.45, compact, model_default="compact"), compact).action
        == "keep"
    )
    # Nothing to change when no compaction was planned.
    assert after_short_compaction(plan(0.2, auto, model_default="compact"), auto).action == "keep"


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"compact_threshold": 0.8, "reset_threshold": 0.7}, "must be below the reset threshold"),
        ({"reset_threshold": 1.5}, "reset_threshold"),
        ({"context_strategy": "forget"}, "context_strategy"),
        ({"window_override": 0}, "window_override"),
        ({"pinned_paths": ("../etc/passwd",)}, "inside the workspace"),
    ],
)
def test_invalid_policies_get_one_clear_error(fields: dict, fragment: str) -> None:
    with pytest.raises(ConfigurationError, match="invalid context policy") as info:
        make_policy(**fields)
    assert fragment in str(info.value)


def _conversation(pairs: int) -> list:
    messages: list = [HumanMessage("do the work")]
    for n in range(pairs):
        messages.append(
            AIMessage(
                "",
                tool_calls=[
                    {
                        "name": "run_command",
                        "args": {"command": f"step {n}"},
                        "id": f"c{n}a",
                        "type": "tool_call",
                    },
                    {
                        "name": "read_file",
                        "args": {"path": f"f{n}"},
                        "id": f"c{n}b",
                        "type": "tool_call",
                    },
                ],
            )
        )
        messages.append(ToolMessage("x" * 50, tool_call_id=f"c{n}a"))
        messages.append(ToolMessage("y" * 50, tool_call_id=f"c{n}b"))
    return messages


@pytest.mark.parametrize("keep", [0, 1, 20, 35, 60, 80, 150, 10_000])
def test_the_cutoff_never_separates_a_tool_call_from_its_results(keep: int) -> None:
    messages = _conversation(6)
    cut = safe_cutoff(messages, keep, lambda m: 10)
    kept = messages[cut:]
    assert not kept or not isinstance(kept[0], ToolMessage)
    called = {c["id"] for m in kept if isinstance(m, AIMessage) for c in m.tool_calls}
    assert all(m.tool_call_id in called for m in kept if isinstance(m, ToolMessage))


def test_the_cutoff_keeps_the_session_opening_context() -> None:
    head = [
        HumanMessage("<handoff-context>…", additional_kwargs={"baton_kind": "handoff"}),
        HumanMessage("<pinned-file>", additional_kwargs={"baton_kind": "pinned"}),
    ]
    assert safe_cutoff(head + _conversation(3), 0, lambda m: 10) >= 2


def test_a_message_waits_for_a_turn_until_one_replies_fails_stops_or_resumed_it_once() -> None:
    from agent_core.storage._records import RowMark
    from agent_core.strategies._awaiting import awaits_reply

    user = RowMark(1, "user", {})
    assert awaits_reply([user])
    assert awaits_reply([user, RowMark(2, "event", {"event": "masking"})])
    assert not awaits_reply([user, RowMark(2, "assistant", {})])
    for ended in ("turn_failed", "turn_stopped", "turn_resumed"):
        # A start-up already answered it once more after a crash: opening the chat does not
        # try a third time (a message that kills the process cannot loop).
        assert not awaits_reply([user, RowMark(2, "event", {"event": ended})]), ended
    assert not awaits_reply([]) and not awaits_reply([RowMark(1, "assistant", {})])
