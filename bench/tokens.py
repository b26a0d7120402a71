"""Cost of one utilization check after a long history grew by one message.

Run: ``.venv/bin/python -m bench.tokens``. The history is aider's whole chat log followed by
every SWE-agent history in ``shared/eval`` (more than 2,000 messages, 200k+ tokens). Each round
appends one message and times, side by side in the same run:

(a) Baton's incremental ``TokenCounter.count`` (per-message cache),
(b) a full tiktoken recount with a fresh counter (no cache),
(c) langchain's ``count_tokens_approximately``,
(d) langchain ``SummarizationMiddleware.before_model`` on the same state, below its trigger.

It asserts (a) == (b) every round, then prints median/p95 per check and ratios against (a).
"""

from __future__ import annotations

import logging

from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately

from agent_core import TokenCounter, load_transcript
from bench._shared import eval_dir, median, p95, time_calls

MODEL = "gpt-4o"
ROUNDS = 40


def build_history() -> list:
    root = eval_dir()
    messages = list(load_transcript(root / "aider-chat-history" / "chat-history.md").messages)
    for path in sorted((root / "swe-agent-trajectories" / "files").rglob("*.traj")):
        messages.extend(load_transcript(path).messages)
    return messages


def _middleware() -> SummarizationMiddleware:
    # A trigger far above the history: before_model counts and returns None, never summarizes.
    return SummarizationMiddleware(
        FakeListChatModel(responses=["unused"]), trigger=("tokens", 10**9)
    )


def main() -> None:
    logging.disable(logging.WARNING)
    history = build_history()
    counter = TokenCounter(MODEL)
    total = counter.count(history)
    print(f"history: {len(history)} messages, {total} tokens ({counter.encoding_name})")
    middleware = _middleware()
    samples: dict[str, list[float]] = {k: [] for k in ("a", "b", "c", "d")}
    for round_number in range(ROUNDS):
        kind = HumanMessage if round_number % 2 else AIMessage
        history.append(kind(f"round {round_number}: ran the tests, 3 failures in test_api.py"))
        incremental = counter.count(history)
        full = TokenCounter(MODEL).count(history)
        assert incremental == full, (incremental, full)
        state = {"messages": history}
        samples["a"] += time_calls(lambda: counter.count(history), repeat=1)
        samples["b"] += time_calls(lambda: TokenCounter(MODEL).count(history), repeat=1)
        samples["c"] += time_calls(lambda: count_tokens_approximately(history), repeat=1)
        samples["d"] += time_calls(
            lambda state=state: middleware.before_model(state, None), repeat=1
        )
        # The timed (a) above hit a warm cache; time the real incremental case too: the check
        # right after an append, which encodes exactly one new message.
        history.append(kind("and one more message to encode"))
        samples.setdefault("a_append", []).extend(
            time_calls(lambda: counter.count(history), repeat=1)
        )
    _report(samples)


def _report(samples: dict[str, list[float]]) -> None:
    labels = {
        "a_append": "(a) Baton incremental, first check after an append",
        "a": "(a) Baton incremental, repeated check",
        "b": "(b) full tiktoken recount",
        "c": "(c) count_tokens_approximately",
        "d": "(d) SummarizationMiddleware.before_model",
    }
    base = median(samples["a_append"])
    print(f"{'check':52} {'median ms':>10} {'p95 ms':>9} {'x (a-append)':>13}")
    for key, label in labels.items():
        values = samples[key]
        print(
            f"{label:52} {median(values) * 1e3:10.3f} {p95(values) * 1e3:9.3f} "
            f"{median(values) / base:12.1f}x"
        )
    print("incremental == full recount in every round: yes")


if __name__ == "__main__":
    main()
