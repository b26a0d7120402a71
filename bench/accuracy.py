"""How close each token estimate comes to the input tokens providers reported.

Run: ``.venv/bin/python -m bench.accuracy``. Sources with provider-reported usage in
``shared/eval``:

- aider chat history: ``> Tokens: N sent`` per request (Claude 3.5 Sonnet, GPT-4o, …). aider's
  prompt also holds its system prompt, repo map and file contents, which the history does not
  show, so methods that only see the visible messages are far off.
- SWE-agent trajectories: ``model_stats.tokens_sent`` is a total over all calls; compared with
  the sum over calls of each method's estimate of that call's prompt (history up to the call).

"Calibrated" is an honest one-step-ahead prediction: ``ContextEstimator`` has observed the
previous calls of the same aider session (prompts and reported figures) and predicts the next
call before seeing its figure. The first call of a session has nothing to anchor on and is
not scored for it (the coverage column says how many calls were). A call's prompt is what aider
sent: the history since the session start or the last ``/clear``, without the ``/commands``,
with aider's reflections (edit errors, lint output it sent back); its chat mode stands in for
the system prompt, whose text the log does not hold.

Rows: "same chat mode" leaves out the first call after a chat-mode switch (``/ask``, ``/chat``),
where aider's new system prompt is unknown to the estimator (Baton always passes its system
prompt, so Baton never has this case). "history-only" keeps calls where nothing outside the
visible history changed since the previous call (no applied edit, commit, added file or
prompt-changing /command): there the prompt's growth is exactly what the log shows, which is
Baton's situation, where every message is known. The second table splits the calibrated
errors by what changed.
"""

from __future__ import annotations

import bisect
import statistics
from collections.abc import Callable, Sequence

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from agent_core import TokenCounter, Transcript, load_transcript
from agent_core.accounting import ContextEstimator
from agent_core.transcripts import NOT_SENT
from bench._shared import eval_dir

Method = Callable[[Sequence[BaseMessage]], float]

# Commands that only display something: the next prompt is unchanged by them. ``/ask`` and
# ``/help <question>`` change the system prompt for one request, which the call's label shows.
_DISPLAY_COMMANDS = frozenset({"ask", "help", "diff", "tokens", "ls", "map"})
_CLEARING_COMMANDS = frozenset({"clear"})
MODE_SWITCH = "chat mode switched (system prompt)"
HISTORY_ONLY = "history only"


def _chars_over_four(messages: Sequence[BaseMessage]) -> float:
    return sum(len(str(m.content)) for m in messages) / 4


def _static_methods(counter: TokenCounter) -> dict[str, Method]:
    return {
        "len/4": _chars_over_four,
        "count_tokens_approximately": count_tokens_approximately,
        "tiktoken (Baton exact count)": counter.count,
    }


def _changes(transcript: Transcript) -> dict[int, set[str]]:
    """What changed aider's prompt outside the visible history, by message index: an edit or
    commit (a file in the chat changed), an added file, a /command."""
    changes: dict[int, set[str]] = {}
    for event in transcript.metadata["events"]:
        if event["kind"] in ("applied_edit", "commit"):
            changes.setdefault(event["message_index"], set()).add("edit")
        elif event["kind"] == "added_file":
            changes.setdefault(event["message_index"], set()).add("files")
    for i, m in enumerate(transcript.messages):
        command = m.additional_kwargs.get(NOT_SENT)
        if command and command not in _DISPLAY_COMMANDS:
            kind = "clear" if command in _CLEARING_COMMANDS else "command"
            changes.setdefault(i, set()).add(kind)
    return changes


def _bucket(changed: set[str], mode_switched: bool) -> str:
    if mode_switched:
        return MODE_SWITCH
    if not changed:
        return HISTORY_ONLY
    if changed == {"edit"}:
        return "edit applied to a file in the prompt"
    if changed <= {"clear", "edit"}:
        return "history cleared (/clear)"
    return "files added/dropped, /undo, /run, ..."


def aider_errors(path) -> tuple[dict[str, list[float]], dict[str, list[float]], int, int]:  # noqa: ANN001
    """Relative errors per method over all aider requests; calibrated errors by what changed
    since the previous call; and the calibrated coverage.

    Each aider session is a new process: a fresh estimator. A call's prompt is what aider sent
    (``Transcript.prompt``: the history since the session start or the last ``/clear``, without
    the commands), under the system prompt its chat mode names (``system_label``).
    """
    transcript = load_transcript(path)
    changes = _changes(transcript)
    sessions = transcript.metadata["sessions"]
    starts = [s["message_index"] for s in sessions]
    errors: dict[str, list[float]] = {}
    buckets: dict[str, list[float]] = {}
    calls = scored = 0
    estimator = session = previous = label = None
    methods: dict[str, Method] = {}
    for point in transcript.usage:
        if point.input_tokens <= 0:
            continue  # a failed request reports nothing to compare with
        current = bisect.bisect_right(starts, point.message_index) - 1
        if current != session:
            session, previous = current, None
            estimator = ContextEstimator(sessions[current].get("model", "unknown"))
            methods = _static_methods(estimator.counter)
        calls += 1
        reported = point.input_tokens
        prompt = transcript.prompt(point)
        system = f"aider {point.system_label} mode" if point.system_label else None
        for name, method in methods.items():
            errors.setdefault(name, []).append(abs(method(prompt) - reported) / reported)
        if previous is not None:
            error = abs(estimator.estimate(prompt, system=system).tokens - reported) / reported
            errors.setdefault("Baton calibrated", []).append(error)
            changed = set().union(
                *(changes.get(i, ()) for i in range(previous + 1, point.message_index + 1))
            )
            bucket = _bucket(changed, point.system_label != label)
            buckets.setdefault(bucket, []).append(error)
            if bucket != MODE_SWITCH:
                errors.setdefault("Baton calibrated, same chat mode", []).append(error)
            if bucket == HISTORY_ONLY:
                errors.setdefault("Baton calibrated, history-only", []).append(error)
            scored += 1
        estimator.observe(prompt, reported, system=system)
        previous, label = point.message_index, point.system_label
    return errors, buckets, calls, scored


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
    print(f"{'method':40} {'n':>5} {'median rel. err':>16} {'p90 rel. err':>13}")
    for name, values in errors.items():
        ordered = sorted(values)
        p90 = ordered[min(len(ordered) - 1, int(0.9 * (len(ordered) - 1)))]
        print(f"{name:40} {len(values):5d} {statistics.median(values):15.1%} {p90:12.1%}")


def main() -> None:
    root = eval_dir()
    errors, buckets, calls, scored = aider_errors(root / "aider-chat-history" / "chat-history.md")
    _table(
        "aider chat history: per-request '> Tokens: N sent'",
        errors,
        f" ({calls} requests; calibrated scored on {scored} with a previous call in the session)",
    )
    _table(
        "Baton calibrated on aider, by what changed since the previous call",
        dict(sorted(buckets.items(), key=lambda item: -len(item[1]))),
        " (only 'history only' is fully visible in the log)",
    )
    _table(
        "SWE-agent trajectories: sum over calls vs model_stats.tokens_sent",
        swe_agent_errors(root / "swe-agent-trajectories" / "files"),
        " (no per-call usage exists, so no one-step-ahead calibration)",
    )


if __name__ == "__main__":
    main()
