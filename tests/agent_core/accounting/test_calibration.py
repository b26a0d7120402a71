"""ContextEstimator: exact for OpenAI, anchored on reported usage, ratios learned per family."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import ValidationError

from agent_core.accounting._calibration import ContextEstimator, FamilyRatios, TokenEstimate
from agent_core.accounting._tokens import TokenCounter


def _history(n: int = 4) -> list:
    return [
        (HumanMessage if i % 2 == 0 else AIMessage)(f"message {i}: " + "lorem ipsum " * 40)
        for i in range(n)
    ]


def test_openai_models_are_exact_without_observations() -> None:
    history = _history()
    estimate = ContextEstimator("gpt-4o").estimate(history)
    assert estimate.basis == "exact"
    assert estimate.tokens == TokenCounter("gpt-4o").count(history)
    assert estimate.fraction == pytest.approx(estimate.tokens / 128000)


def test_other_families_are_approximate_with_their_prior() -> None:
    history = _history()
    estimate = ContextEstimator("claude-sonnet-4-5").estimate(history)
    counted = TokenCounter("claude-sonnet-4-5").count(history)
    assert estimate.basis == "approximate"
    assert estimate.tokens == round(counted * 1.15)
    assert estimate.window == 200000


def test_estimate_after_an_observation_is_reported_plus_scaled_growth() -> None:
    estimator = ContextEstimator("claude-sonnet-4-5")
    history = _history()
    counted = estimator.counter.count(history)
    estimator.observe(history, int(counted * 1.2))
    before = estimator.counter.count(history)
    history.append(HumanMessage("one more question about the failing test"))
    growth = estimator.counter.count(history) - before
    estimate = estimator.estimate(history)
    assert estimate.basis == "calibrated"
    assert estimate.tokens == round(int(counted * 1.2) + 1.2 * growth)


def test_a_rewritten_history_keeps_the_providers_hidden_overhead() -> None:
    # After a reset or a compaction the history no longer extends the observed one, but what
    # the provider adds that we cannot count (a tool-use preamble) is still there.
    estimator = ContextEstimator("claude-sonnet-4-5")
    history = _history(6)
    overhead = 700
    estimator.observe(history, round(estimator.counter.count(history) * 1.15) + overhead)
    ratio = estimator.ratios.ratio("sonnet")
    compacted = [HumanMessage("summary of earlier work"), *history[4:]]
    estimate = estimator.estimate(compacted)
    assert estimate.basis == "calibrated"
    assert estimate.tokens == pytest.approx(
        ratio * estimator.counter.count(compacted) + overhead, abs=2
    )


def test_an_estimate_never_falls_below_our_own_count() -> None:
    estimator = ContextEstimator("gpt-4o")
    history = _history(6)
    estimator.observe(history, 10)  # a provider figure far below the prompt we sent
    shorter = history[2:]
    assert estimator.estimate(shorter).tokens == estimator.counter.count(shorter)


def test_each_system_prompt_keeps_its_own_anchor() -> None:
    # The main agent and a handoff writer alternate; the writer's call must not move the main
    # agent's anchor.
    estimator = ContextEstimator("gpt-4o")
    history = _history()
    estimator.observe(
        history, estimator.counter.count(history, system="agent") + 300, system="agent"
    )
    writer_prompt = [HumanMessage("write the handoff for: " + "lorem " * 50)]
    estimator.observe(writer_prompt, 5, system="writer")
    history.append(HumanMessage("and now the next step"))
    main = estimator.estimate(history, system="agent")
    assert main.basis == "calibrated"
    assert main.tokens == estimator.counter.count(history, system="agent") + 300


def test_a_new_system_prompt_is_counted_on_top_of_the_latest_anchor() -> None:
    estimator = ContextEstimator("gpt-4o")
    history = _history()
    estimator.observe(history, estimator.counter.count(history, system="old") + 40, system="old")
    longer = "a much longer system prompt " * 20
    estimate = estimator.estimate(history, system=longer)
    assert estimate.basis == "calibrated"
    assert estimate.tokens == estimator.counter.count(history, system=longer) + 40


def test_ratio_is_learned_from_plausible_observations_only() -> None:
    ratios = FamilyRatios()
    assert ratios.ratio("sonnet") == 1.15
    assert not ratios.add("sonnet", 50_000, 100)  # hidden context, not a tokenizer ratio
    assert ratios.add("sonnet", 1_200, 1_000)
    assert ratios.add("sonnet", 2_600, 2_000)
    assert ratios.ratio("sonnet") == pytest.approx(3_800 / 3_000)
    assert ratios.ratio("gpt") == 1.0


def test_growth_teaches_the_ratio_when_the_full_prompt_hides_context() -> None:
    estimator = ContextEstimator("claude-sonnet-4-5")
    history = _history(2)
    hidden = 20_000  # e.g. a tool's system prompt we never see
    estimator.observe(history, hidden + round(estimator.counter.count(history) * 1.3))
    history.extend(_history(6))
    counted = estimator.counter.count(history)
    estimator.observe(history, hidden + round(counted * 1.3))
    assert estimator.ratios.ratio("sonnet") == pytest.approx(1.3, abs=0.01)


def test_reset_forgets_the_anchor() -> None:
    estimator = ContextEstimator("gpt-4o")
    history = _history()
    estimator.observe(history, 5)
    estimator.reset()
    assert estimator.estimate(history).basis == "exact"


def test_released_between_turns_it_keeps_the_figures_and_lets_the_prompt_go() -> None:
    # An estimator per thread lives across turns: holding each call's messages and tools
    # kept every recent thread's whole context in memory.
    import gc
    import weakref

    estimator = ContextEstimator("claude-sonnet-4-5")
    history = _history(6)
    overhead = 700
    estimator.observe(history, round(estimator.counter.count(history) * 1.15) + overhead)
    estimator.counter.count(history)
    next_turn = [
        HumanMessage(m.content) if isinstance(m, HumanMessage) else AIMessage(m.content)
        for m in history
    ] + [HumanMessage("and now the tests")]
    before = estimator.estimate(next_turn)
    held = [weakref.ref(m) for m in history]
    estimator.release()
    del history
    gc.collect()
    assert [ref() for ref in held] == [None] * len(held)
    after = estimator.estimate(next_turn)
    assert (after.tokens, after.basis) == (before.tokens, before.basis)


def test_window_override_sets_the_fraction() -> None:
    estimate = ContextEstimator("gpt-4o", window_override=1000).estimate(_history())
    assert estimate.window == 1000
    assert estimate.fraction == estimate.tokens / 1000


def test_token_estimate_is_frozen() -> None:
    estimate = TokenEstimate(tokens=1, window=2, fraction=0.5, basis="exact")
    with pytest.raises(ValidationError):
        estimate.tokens = 3  # type: ignore[misc]


def _replied(history: list, input_tokens: int) -> list:
    reply = AIMessage(
        "done",
        usage_metadata={"input_tokens": input_tokens, "output_tokens": 3, "total_tokens": 0},
    )
    return [*history, reply, HumanMessage("next")]


def test_usage_stored_on_the_latest_reply_calibrates_a_fresh_estimator() -> None:
    history = _history()
    estimator = ContextEstimator("claude-sonnet-4-5")
    messages = _replied(history, 9000)
    estimate = estimator.estimate(messages)
    ratio = estimator.ratios.ratio("sonnet")
    assert estimate.basis == "calibrated"
    growth = estimator.counter.count(messages) - estimator.counter.count(history)
    assert estimate.tokens == pytest.approx(9000 + ratio * growth, abs=1)


def test_a_reply_after_a_summary_is_not_trusted_as_an_observation() -> None:
    # The summary may have been written after that call: what precedes the reply now is not
    # what the provider was sent.
    summary = HumanMessage(
        "<summary>\nearlier\n</summary>", additional_kwargs={"baton_kind": "summary"}
    )
    messages = _replied([summary, *_history()], 9000)
    assert ContextEstimator("claude-sonnet-4-5").estimate(messages).basis == "approximate"


def test_threads_of_one_runner_share_what_they_learn_about_a_tokenizer() -> None:
    from agent_core.runtime._runner import ThreadRunner
    from tests.agent_core.runtime_helpers import make_setup

    runner = ThreadRunner()
    first = runner.estimator(make_setup(thread_id="a", model_name="claude-sonnet-4-5"))
    second = runner.estimator(make_setup(thread_id="b", model_name="claude-sonnet-4-5"))
    assert first is not second  # anchors stay per thread
    history = _history()
    first.observe(history, round(first.counter.count(history) * 1.3))
    assert second.ratios.ratio("sonnet") == pytest.approx(1.3, abs=0.01)
