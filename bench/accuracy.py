"""How close each token estimate comes to the input tokens providers reported.

Run: ``.venv/bin/python -m bench.accuracy``. Sources with provider-reported usage in
``shared/eval``:

- aider chat history: ``> Tokens: N sent`` per request (Claude 3.5 Sonnet, GPT-4o, …). aider's
  prompt also holds its system prompt, repo map and file contents, which the history does not
  show, so methods that only see the visible messages are far off.
- SWE-agent trajectories: ``model_stats.tokens_sent`` is a total over all calls; compared with
  the sum over calls of each method's estimate of that call's prompt (history up to the call).

"Calibrated" is an honest one-step-ahead prediction: ``ContextEstimator`` has observed the
previous call of the same aider session (its messages and reported figure) and predicts the
next call before seeing its figure. The first call of a session has nothing to anchor on and is
not scored for it (the coverage column says how many calls were). "history-only" restricts
the score to calls where nothing outside the visible history changed since the previous call
(no applied edit, commit, added file or /command in between): there, the prompt's growth is
exactly what the history shows, which is Baton's situation, where every message is known.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from agent_core.calibration import ContextEstimator
from agent_core.tokens import TokenCounter
from agent_core.transcripts import Transcript, load_transcript
from bench._shared import eval_dir

Method = Callable[[Sequence[BaseMessage]], float]


def _chars_over_four(messages: Sequence[BaseMessage]) -> float:
    return sum(len(str(m.content)) for m in messages) / 4


def _static_methods(counter: TokenCounter) -> dict[str, Method]:
    return {
        "len/4": _chars_over_four,
        "count_tokens_approximately": count_tokens_approximately,
        "tiktoken (Baton exact count)": counter.count,
    }


_HIDDEN_CHANGES = ("applied_edit", "added_file", "commit")


def _hidden_change_points(transcript: Transcript) -> set[int]:
    """Message indexes after which aider's prompt changed in ways the history does not show:
    an edit or commit changed a file in the chat, a file was added, or a /command ran."""
    points = {
        e["message_index"] for e in transcript.metadata["events"] if e["kind"] in _HIDDEN_CHANGES
    }
    points.update(
        i
        for i, m in enumerate(transcript.messages)
        if m.type == "human" and str(m.content).startswith("/")
    )
    return points


def _aider_sessions(transcript: Transcript) -> list[tuple[str, list, list]]:
    """(model, messages, usage rebased to the session) for each aider session."""
    hidden = _hidden_change_points(transcript)
    starts = [s["message_index"] for s in transcript.metadata["sessions"]]
    bounds = list(zip(starts, [*starts[1:], len(transcript.messages)], strict=True))
    sessions = []
    for (start, end), info in zip(bounds, transcript.metadata["sessions"], strict=True):
        usage = [
            (u.message_index - start, u.input_tokens, {h - start for h in hidden})
            for u in transcript.usage
            if start <= u.message_index < end
        ]
        if usage:
            sessions.append((info.get("model", "unknown"), transcript.messages[start:end], usage))
    return sessions


def aider_errors(path) -> tuple[dict[str, list[float]], int, int]:  # noqa: ANN001
    """Relative errors per method over all aider requests; plus calibrated coverage."""
    errors: dict[str, list[float]] = {}
    calls = scored = 0
    for model, messages, usage in _aider_sessions(load_transcript(path)):
        estimator = ContextEstimator(model)
        methods = _static_methods(estimator.counter)
        previous = None
        for index, reported, hidden in usage:
            if reported <= 0:
                continue  # a failed request reports nothing to compare with
            calls += 1
            prompt = messages[:index]
            for name, method in methods.items():
                errors.setdefault(name, []).append(abs(method(prompt) - reported) / reported)
            if previous is not None:
                error = abs(estimator.estimate(prompt).tokens - reported) / reported
                errors.setdefault("Baton calibrated", []).append(error)
                if not any(previous - 1 <= h < index for h in hidden):
                    errors.setdefault("Baton calibrated, history-only", []).append(error)
                scored += 1
            estimator.observe(prompt, reported)
            previous = index
    return errors, calls, scored


def swe_agent_errors(root) -> dict[str, list[float]]:  # noqa: ANN001
    """Relative error of the summed per-call estimates against ``tokens_sent``."""
    errors: dict[str, list[float]] = {}
    for path in sorted(root.rglob("*.traj")):
        transcript = load_transcript(path)
        stats = transcript.metadata.get("model_stats") or {}
        if not stats.get("tokens_sent"):
            continue
        methods = _static_methods(TokenCounter("gpt-4"))
        calls = [i for i, m in enumerate(transcript.messages) if m.type == "ai"]
        for name, method in methods.items():
            total = sum(method(transcript.messages[:i]) for i in calls)
            errors.setdefault(name, []).append(
                abs(total - stats["tokens_sent"]) / stats["tokens_sent"]
            )
    return errors


def _table(title: str, errors: dict[str, list[float]], note: str = "") -> None:
    print(f"\n{title}{note}")
    print(f"{'method':32} {'n':>5} {'median rel. err':>16} {'p90 rel. err':>13}")
    for name, values in errors.items():
        ordered = sorted(values)
        p90 = ordered[min(len(ordered) - 1, int(0.9 * (len(ordered) - 1)))]
        print(f"{name:32} {len(values):5d} {statistics.median(values):15.1%} {p90:12.1%}")


def main() -> None:
    root = eval_dir()
    errors, calls, scored = aider_errors(root / "aider-chat-history" / "chat-history.md")
    _table(
        "aider chat history: per-request '> Tokens: N sent'",
        errors,
        f" ({calls} requests; calibrated scored on {scored} with a previous call in the session)",
    )
    _table(
        "SWE-agent trajectories: sum over calls vs model_stats.tokens_sent",
        swe_agent_errors(root / "swe-agent-trajectories" / "files"),
        " (no per-call usage exists, so no one-step-ahead calibration)",
    )


if __name__ == "__main__":
    main()
