"""The benchmark scripts import cleanly, and the accuracy report keeps its findings.

Benchmarks print timings and are run by hand (``make bench``); these checks hold no timing.
They guard what the scripts claim that is not about speed: every script at least imports,
and Baton's calibrated estimate on aider's reported usage stays far ahead of the blind counts.
"""

from __future__ import annotations

import importlib
import pkgutil
import statistics

import pytest

import bench
from tests.shared_data import eval_path


@pytest.mark.parametrize(
    "name", sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name != "__main__")
)
def test_every_benchmark_script_imports(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert name.startswith("_") or callable(getattr(module, "main", None))


def test_calibrated_estimates_of_aiders_prompts_stay_accurate() -> None:
    from bench.accuracy import HISTORY_ONLY, aider_errors

    errors, buckets, calls, scored = aider_errors(
        eval_path("aider-chat-history", "chat-history.md")
    )
    median = {name: statistics.median(values) for name, values in errors.items()}
    assert calls == 820 and scored == 384
    # The blind counts miss aider's system prompt, repo map and files: ~98% off.
    for blind in ("len/4", "count_tokens_approximately", "tiktoken (Baton exact count)"):
        assert median[blind] > 0.9
    assert median["Baton calibrated"] < 0.04
    assert median["Baton calibrated, same chat mode"] <= 0.03
    assert statistics.median(buckets[HISTORY_ONLY]) <= 0.015


def test_handoffs_keep_the_goal_and_every_request_where_truncation_does_not(capsys) -> None:
    from bench.continuity import APP_BUDGET, GOAL, WIDE_BUDGET, _aider, _baton, _swe_agent, run

    public = _swe_agent(eval_path("swe-agent-trajectories")) + _aider(
        eval_path("aider-chat-history"), fractions=(0.2,)
    )
    wide = run(public, WIDE_BUDGET, search=False)
    for writer in ("facts", "simulator"):
        for kind in ("goal", "requests", "files", "commits"):
            assert wide.held[writer, kind] == wide.totals[kind], (writer, kind)
    assert wide.held["baseline", "requests"] < wide.totals["requests"]
    # At the app's budget every kind is held, or named where it can be read, by both writers,
    # Baton's own sessions' in progress, next step, queued messages and lessons included.
    app = run(public + _baton(chain_resets=12), APP_BUDGET, search=False)
    for writer in ("facts", "simulator"):
        for kind, total in app.totals.items():
            # Stale failures have their own test below (a failure resolved by operation).
            if total and kind != "stale_failures":
                assert app.covered[writer, kind] / total >= GOAL, (writer, kind)
    assert app.covered["baseline", "requests"] / app.totals["requests"] < GOAL


def test_no_failure_fixed_before_the_cut_is_handed_on_as_still_failing() -> None:
    from bench import sessions
    from bench.continuity import APP_BUDGET, _chain_cut, _own, run

    cuts = [
        _own(sessions.failure_fixed()),
        _own(sessions.fixed_differently()),
        _chain_cut(sessions.fixed_next_session(), "fixed next session", ()),
    ]
    tally = run(cuts, APP_BUDGET, search=False)
    for writer in ("facts", "simulator"):
        assert tally.held[writer, "stale_failures"] == tally.totals["stale_failures"], writer


def test_masking_sends_fewer_tokens_and_keeps_every_tool_pair() -> None:
    import json

    from langchain_core.messages import AIMessage, ToolMessage

    from agent_core.policy import make_policy
    from agent_core.transcripts import load_transcript
    from bench.masking import as_tool_calls, replay

    path = eval_path(
        "swe-agent-trajectories",
        "files",
        "trajectories",
        "demonstrations",
        "ctf",
        "web",
        "i_got_id_demo.traj",
    )
    raw = json.loads(path.read_text(encoding="utf-8"))["history"]
    messages = as_tool_calls(raw, load_transcript(path).messages)
    assert sum(isinstance(m, ToolMessage) for m in messages) >= 15  # observations as results
    policy = make_policy(keep_recent_tokens=1_000)
    plain = replay(messages, policy, False, None)
    masked = replay(messages, policy, True, None)
    assert masked.masks and masked.sent < 0.8 * plain.sent
    calls = {c["id"] for m in masked.view if isinstance(m, AIMessage) for c in m.tool_calls}
    results = [m.tool_call_id for m in masked.view if isinstance(m, ToolMessage)]
    assert sorted(calls) == sorted(results)


def test_the_import_bench_reads_aiders_whole_log_as_one_json_session(tmp_path) -> None:
    from agent_core.transcripts import load_transcript
    from bench.importing import measure, session_file

    eval_path("aider-chat-history", "chat-history.md")
    path = session_file(tmp_path)
    assert path.stat().st_size > 3_000_000
    assert len(load_transcript(path).messages) == 3240
    small = tmp_path / "small.json"
    small.write_text('[{"role": "user", "content": "hi"}]', encoding="utf-8")
    timings = measure(small, repeat=1, model="anthropic:claude-sonnet-4-5", window=60000)
    assert set(timings) == {"json.loads", "load_transcript", "app import", "replay"}


def test_the_ui_bench_tells_streaming_flushes_from_finished_steps() -> None:
    import json

    from bench.ui import turn_bytes

    def frame(**values) -> tuple[int, str]:
        payload = "42/_event," + json.dumps(
            [
                "event",
                {
                    "delta": {
                        "chat_state": {f"{name}_rx_state_": value for name, value in values.items()}
                    }
                },
            ]
        )
        return len(payload), payload

    frames = [
        frame(streaming="Writing"),
        frame(streaming="Writing the parser"),
        frame(streaming="", live_3=[{"key": "a"}]),
        frame(live_pages=[0, 1]),
        frame(rows=[]),
        frame(sending=False),
    ]
    measured = turn_bytes(frames)
    assert measured["flushes"] == 2 and measured["steps"] == 3
    assert measured["token_bytes"] == statistics.median([frames[0][0], frames[1][0] / 2])
    assert measured["end_bytes"] == frames[-1][0]


def test_the_import_bench_reads_every_real_file_by_format() -> None:
    from bench.importing import per_format, real_files

    root = eval_path("real-sessions").parent
    rows = per_format(real_files(root), repeat=1)
    assert set(rows) == {"claude_code", "codex", "pi", "opencode", "cline", "aider", "swe_agent"}
    assert all(row.files and row.messages and row.seconds > 0 for row in rows.values())
    assert rows["pi"].skipped == 4  # the branch the branched session left
    assert rows["pi"].tool_calls > 800


def test_the_continuity_bench_cuts_pis_session_where_pis_summaries_end() -> None:
    from bench.continuity import _pi

    cuts = _pi(eval_path("real-sessions"))
    assert [c.name for c in cuts] == ["pi:cut 1", "pi:cut 2"]
    first, second = cuts
    # Where its summaries end: pi kept entries 293 on (288 messages) and 551 on whole.
    assert len(first.messages) == 288 and len(second.messages) == 545
    assert first.by_kind["goal"][0].startswith("alright, read @packages/coding-agent/src/main.ts")
    assert len(second.by_kind["requests"]) > len(first.by_kind["requests"]) > 0
    assert all(f.startswith("/Users/badlogic/workspaces/pi-mono/") for f in first.by_kind["files"])
    assert not any(m.additional_kwargs.get("compact_summary") for m in second.messages)


def test_the_handoff_keeps_its_budget_at_each_of_pis_own_cuts() -> None:
    """A long plan under way beside many long rules the user stated overflowed the budget
    (1,573 of 1,500 tokens at pi's second cut) once every other step was spent."""
    from bench.continuity import _COUNT, APP_BUDGET, _pi, _pi_chained, hand_on

    cuts = [
        *_pi(eval_path("real-sessions")),
        *_pi_chained(eval_path("real-sessions", "pi-mono")),
    ]
    for cut in cuts:
        for writer in ("facts", "simulator"):
            text = hand_on(writer, cut, APP_BUDGET).text
            assert _COUNT(text) <= APP_BUDGET, (cut.name, writer)


def test_a_model_written_handoff_keeps_the_item_under_way_that_a_plan_file_names() -> None:
    """The item under way comes from a plan file the agent wrote and read back: its title is
    in a tool's output, yet it is evidence, not an echo of the tool (the echo check used to
    remove what the evidence check had just added)."""
    from bench.continuity import APP_BUDGET, _pi_chained, hand_on

    first = _pi_chained(eval_path("real-sessions", "pi-mono"))[0]
    artifact = hand_on("simulator", first, APP_BUDGET).artifact
    assert artifact is not None
    assert any(line.startswith("Under way: WP14") for line in artifact.in_progress)
