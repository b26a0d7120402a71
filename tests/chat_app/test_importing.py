"""Importing an agent's session as a read-only chat, and replaying it with a policy."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from chat_app.root import root
from tests.chat_app.apps import started_with
from tests.chat_app.test_services import (  # noqa: F401  (fixtures)
    _drain,
    database,
    db_url,
    settings,
)
from tests.session_files import SUMMARY, claude_code_session
from tests.shared_data import REPO_ROOT, eval_path

#: Replay runs as older versions of the app stored them.
OLD_RUNS = REPO_ROOT / "tests" / "agent_core" / "data"

# On SQLite and on PostgreSQL (``database`` is parametrized; it skips when PG is absent).
pytestmark = pytest.mark.usefixtures("database")


@pytest.fixture
def alice() -> str:
    """A fresh owner: the PostgreSQL database is shared by the tests of a run."""
    return f"alice-{uuid.uuid4().hex}"


def _setup_assistant(window: int | None, **fields) -> str:
    from sqlmodel import Session

    from chat_app.db import repo
    from chat_app.db.engine import write_engine
    from chat_app.db.models import AssistantCreate

    chosen = {
        "model": "simulator",
        "context_strategy": "reset",
        "reset_threshold": 0.8,
        "compact_threshold": 0.5,
        **fields,
    }
    with Session(write_engine(root().engine)) as db:
        assistant = repo.create_assistant(
            session=db,
            data=AssistantCreate(
                name=f"Tight {window} {uuid.uuid4().hex[:6]}", window_override=window, **chosen
            ),
        )
        return assistant.id


def test_a_claude_code_session_imports_with_its_own_compaction_as_a_divider(alice, app) -> None:
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.services.conversation.threads import importing

    text = claude_code_session()
    thread_id = importing.import_session(app, alice, "session.jsonl", text.encode())
    view = threads.load_timeline(app, alice, thread_id, limit=500)
    dividers = [i for i in view.items if i.kind == "divider"]
    assert [d.session_number for d in dividers] == [1, 2]
    card = dividers[1].handoff
    assert card["imported_by"] == "Claude Code"
    assert SUMMARY in card["current_state_summary"]
    assert card["tokens_before"] > card["tokens_after"] > 0
    assert dividers[1].utilization == pytest.approx(card["tokens_before"] / 200_000, rel=0.01)
    # The summary is the card, not a message; requests and tool calls keep their shape.
    users = [i.content for i in view.items if i.kind == "message" and i.role == "user"]
    assert users[0] == "Build a CSV parser for invoices with quoted fields."
    assert not any(SUMMARY in u for u in users)
    tools = [i for i in view.items if i.kind == "tool"]
    assert tools[0].tool_name == "Write" and tools[0].tool_result.startswith("ok ")
    assert view.thread.title.endswith("(imported)")
    # Someone else cannot see it.
    assert threads.load_timeline(app, "bob", thread_id) is None


def test_an_imported_chat_is_read_only(alice, app) -> None:
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import importing

    thread_id = importing.import_session(
        app, alice, "session.jsonl", claude_code_session().encode()
    )
    events = asyncio.run(_drain(chat.send_message(app, alice, thread_id, "carry on")))
    assert events[0]["type"] == "error"
    assert "read-only" in events[0]["data"]["message"]
    handoff = asyncio.run(_drain(chat.run_handoff(app, alice, thread_id, None)))
    assert "read-only" in handoff[0]["data"]["message"]
    from chat_app.services.conversation.runs import replies

    regenerated = asyncio.run(_drain(replies.regenerate(app, alice, thread_id)))
    assert "read-only" in regenerated[0]["data"]["message"]


def test_an_imported_chat_says_where_it_was_imported_from_not_which_model_answers(
    alice, app
) -> None:
    from chat_app.services.conversation.runs import new_chat
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.services.conversation.threads import importing
    from chat_app.services.presentation.timeline import model_label

    thread_id = importing.import_session(
        app, alice, "session.jsonl", claude_code_session().encode()
    )
    record = importing.imported_record(app, thread_id)
    assert record is not None and record.model
    label = f"Imported from Claude Code · {record.model}"
    simulator = model_label("simulator")
    # The chat list, the chat's header and its view: each names the source, none the
    # assistant's simulator, which answered none of it.
    listed = next(t for t in threads.list_threads(app, alice) if t.id == thread_id)
    assert listed.model_label == label
    header = new_chat.chat_assistant(app, alice, thread_id)
    assert header is not None and header.model_label == label and simulator not in header.name
    view = threads.load_timeline(app, alice, thread_id)
    assert view.model_label == view.thread.model_label == label
    # A chat of the same owner run here still names its model.
    own = threads.create_thread(app, alice, "Mine").id
    assert new_chat.chat_assistant(app, alice, own).model_label == simulator


def test_messages_typed_while_the_agent_worked_are_imported_as_queued(alice, app) -> None:
    """Each kept once and marked; the log ends on one the agent never took, and the
    read-only chat does not answer it when opened."""
    from chat_app.services.conversation.runs import chat
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.services.conversation.threads import importing
    from tests import session_files as s

    thread_id = importing.import_session(
        app, alice, "queued.jsonl", s.claude_code_queued_session().encode()
    )
    store = root().store
    rows = [
        r
        for session in store.sessions(thread_id)
        for r in store.messages(session.id)
        if r.role == "user"
    ]
    assert [(r.content, bool(r.meta.get("queued"))) for r in rows] == [
        ("Add CSV export to the report page", False),
        (s.SENT_INTO_TURN, True),
        (s.SENT_AS_PROMPT, False),
        (s.EDITED, False),
        (s.STILL_QUEUED, True),
    ]
    view = threads.load_timeline(app, alice, thread_id, limit=500)
    assert not view.awaiting_reply and view.pending == 0
    assert asyncio.run(_drain(chat.resume_queued(app, alice, thread_id))) == []


@pytest.mark.parametrize(
    "name,data,reason",
    [
        ("notes.txt", b"just some words", "could not be read"),
        (
            "deep.json",
            b"[" * 100_000 + b"]" * 100_000,
            "nested 100,000 levels deep; a session file nests at most 100",
        ),
        ("session.jsonl", b'{"type": "user"\n', "could not be read"),
        ("session.jsonl", b"\xff\xfe\x00", "not UTF-8"),
    ],
)
def test_a_file_that_is_no_session_is_refused_with_the_reason(
    alice, name, data, reason, app
) -> None:
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.services.conversation.threads import importing

    with pytest.raises(importing.ImportRejected, match=reason):
        importing.import_session(app, alice, name, data)
    assert threads.list_threads(app, alice) == []


def test_an_uploaded_name_keeps_only_its_last_segment_of_either_kind(alice, app) -> None:
    from chat_app.services.conversation.threads import importing

    thread_id = importing.import_session(
        app, alice, "C:\\Users\\me\\..\\session.jsonl", claude_code_session().encode()
    )
    assert importing.imported_record(app, thread_id).filename == "session.jsonl"


def test_a_file_over_the_limit_is_refused_before_it_is_parsed(alice, app) -> None:
    from chat_app.services.conversation.threads import importing

    app = started_with(app, import_max_mb=0.01)  # BATON_IMPORT_MAX_MB=0.01
    with pytest.raises(importing.ImportRejected, match="limit is") as refused:
        importing.import_session(app, alice, "session.jsonl", claude_code_session().encode())
    assert refused.value.code == "too_large"


def test_a_replay_with_a_tight_window_masks_resets_and_is_stored_with_its_chart(alice, app) -> None:
    from chat_app.services.conversation.threads import importing, replays

    thread_id = importing.import_session(
        app, alice, "session.jsonl", claude_code_session().encode()
    )
    assistant_id = _setup_assistant(14000)
    seen: list[tuple[int, int]] = []
    replay_id = replays.run_replay(
        app, alice, thread_id, assistant_id, progress=lambda n, t: seen.append((n, t))
    )
    assert replay_id is not None
    assert seen[-1][0] == seen[-1][1]  # progress reaches the end
    (run,) = replays.list_replays(app, alice, thread_id)
    assert run.resets >= 2 and run.masks >= 2
    assert [e.kind for e in run.events].count("reset") == run.resets
    assert [e.kind for e in run.events].count("mask") == run.masks
    # The app's order: the first mask comes before the first reset, at the mask threshold.
    kinds = [e.kind for e in run.events]
    assert kinds.index("mask") < kinds.index("reset")
    mask = next(e for e in run.events if e.kind == "mask")
    assert mask.label.startswith("Mask at ") and "old tool output" in mask.label
    assert mask.utilization >= 0.35
    assert "mask at 35%, reset at 80%, 14,000-token window" in run.label
    first = next(e for e in run.events if e.kind == "reset")
    assert first.handoff and first.handoff["completed_work"] is not None
    rows = replays.chart_rows(app, alice, thread_id, replay_id)
    assert any("original" in r for r in rows) and any("baton" in r for r in rows)
    assert sum("baton_reset" in r for r in rows) == run.resets
    assert sum("baton_mask" in r for r in rows) == len(
        {e.message_index for e in run.events if e.kind == "mask"}
    )
    assert sum("original_compaction" in r for r in rows) == 1
    json.dumps(rows)  # the chart's data crosses the websocket as JSON
    # Not the owner: nothing.
    assert replays.run_replay(app, "bob", thread_id, assistant_id) is None
    assert replays.list_replays(app, "bob", thread_id) == []


def test_replays_stored_by_an_older_version_still_list_and_chart(alice, app) -> None:
    # Rows the app stored on 2026-12-01 (that version's replays of this session, one resetting
    # and one compacting): their events lack keys added since, and read back all the same.
    from sqlmodel import Session

    from chat_app.db.engine import write_engine
    from chat_app.db.models import TranscriptReplay
    from chat_app.services.conversation.threads import importing, replays

    thread_id = importing.import_session(
        app, alice, "session.jsonl", claude_code_session().encode()
    )
    stored = json.loads((OLD_RUNS / "replay_runs_2026-12-01.json").read_text(encoding="utf-8"))
    ids = []
    with Session(write_engine(root().engine)) as db:
        for row in stored:
            run = TranscriptReplay(
                thread_id=thread_id,
                assistant_name=row["policy"]["assistant"],
                policy=row["policy"],
                series=row["series"],
                events=row["events"],
                summary=row["summary"],
            )
            db.add(run)
            db.commit()
            ids.append(run.id)
    resetting, compacting = replays.list_replays(app, alice, thread_id)
    assert (resetting.resets, compacting.compactions) == (4, 12)
    assert [e.kind for e in resetting.events] == ["reset"] * 4
    first = resetting.events[0]
    assert first.label == (
        f"Reset at {round(first.utilization * 100)}% after message {first.message_index + 1}: "
        "session 2 starts from the handoff"
    )
    assert first.handoff and first.handoff["goal"] == stored[0]["events"][0]["handoff"]["goal"]
    assert first.preview
    assert [e.kind for e in compacting.events] == ["compaction"] * 12
    assert "messages summarized" in compacting.events[0].label
    rows = replays.chart_rows(app, alice, thread_id, ids[0])
    assert sum("baton_reset" in r for r in rows) == 4
    rows = replays.chart_rows(app, alice, thread_id, ids[1])
    assert sum("baton_compaction" in r for r in rows) == 12


def test_a_replay_runs_on_the_window_the_assistants_chats_get(alice, app) -> None:
    # BATON_SIM_WINDOW sets the simulator's window for chats; the replay of the same
    # assistant must use it too, not the imported agent's model's 200,000 tokens.
    from chat_app.services.conversation.threads import importing, replays

    app = started_with(app, sim_window=12000)
    thread_id = importing.import_session(
        app, alice, "session.jsonl", claude_code_session().encode()
    )
    assert replays.run_replay(app, alice, thread_id, _setup_assistant(None)) is not None
    (run,) = replays.list_replays(app, alice, thread_id)
    assert run.window == 12000 and "12,000-token window" in run.label
    assert run.resets >= 2


def test_a_window_the_session_cannot_fit_is_said_with_one_that_does(alice, app) -> None:
    # At 6,000 tokens the assistant's prompt, tools and a handoff already pass the reset
    # point: every reset would open a session over its threshold. The replay says so.
    from agent_core import ConfigurationError
    from chat_app.services.conversation.threads import importing, replays

    app = started_with(app, sim_window=6000)
    thread_id = importing.import_session(
        app, alice, "session.jsonl", claude_code_session().encode()
    )
    with pytest.raises(
        ConfigurationError, match=r"of a 6,000-token window.*window of at least [\d,]+ tokens"
    ):
        replays.run_replay(app, alice, thread_id, _setup_assistant(None))
    assert replays.list_replays(app, alice, thread_id) == []


def test_auto_means_what_it_means_for_the_assistants_model(alice, app) -> None:
    # An Opus-class session (auto would compact) replayed by an assistant on the simulator
    # (auto resets): the replay does what that assistant's chats do.
    from chat_app.services.conversation.threads import importing, replays

    session = claude_code_session().replace("claude-sonnet-4-5", "claude-opus-4-1")
    thread_id = importing.import_session(app, alice, "session.jsonl", session.encode())
    assert (
        replays.run_replay(app, alice, thread_id, _setup_assistant(14000, context_strategy="auto"))
        is not None
    )
    (run,) = replays.list_replays(app, alice, thread_id)
    assert "auto (reset)" in run.label
    kinds = {e.kind for e in run.events}
    assert "reset" in kinds and "compaction" not in kinds


def test_a_cancelled_replay_stores_nothing(alice, app) -> None:
    from chat_app.services.conversation.threads import importing, replays

    thread_id = importing.import_session(
        app, alice, "session.jsonl", claude_code_session().encode()
    )
    assistant_id = _setup_assistant(20000)
    calls = {"n": 0}

    def cancelled() -> bool:
        calls["n"] += 1
        return calls["n"] > 5

    with pytest.raises(replays.ReplayCancelled):
        replays.run_replay(app, alice, thread_id, assistant_id, cancelled=cancelled)
    assert replays.list_replays(app, alice, thread_id) == []


def test_deleting_an_imported_chat_deletes_its_file_and_replays(alice, app) -> None:
    from sqlmodel import Session, select

    from chat_app.db.models import ImportedTranscript, TranscriptReplay
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.services.conversation.threads import importing, replays

    thread_id = importing.import_session(
        app, alice, "session.jsonl", claude_code_session().encode()
    )
    assert replays.run_replay(app, alice, thread_id, _setup_assistant(20000)) is not None
    assert threads.delete_thread(app, alice, thread_id)
    with Session(root().engine) as db:
        assert db.get(ImportedTranscript, thread_id) is None
        assert (
            db.exec(select(TranscriptReplay).where(TranscriptReplay.thread_id == thread_id)).all()
            == []
        )


def test_a_pi_session_imports_with_its_two_compactions_as_dividers(alice, app) -> None:
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.services.conversation.threads import importing

    path = eval_path("real-sessions", "pi-mono", "before-compaction.jsonl")
    thread_id = importing.import_session(app, alice, path.name, path.read_bytes())
    view = threads.load_timeline(app, alice, thread_id, limit=2000)
    dividers = [i for i in view.items if i.kind == "divider"]
    assert [d.session_number for d in dividers] == [1, 2, 3]
    assert [d.handoff["imported_by"] for d in dividers[1:]] == ["pi", "pi"]
    assert all(
        d.handoff["current_state_summary"].startswith("# Context Checkpoint") for d in dividers[1:]
    )
    record = importing.imported_record(app, thread_id)
    assert record is not None and importing.imported_label(record).startswith("Imported from pi")


def test_the_lines_an_import_skipped_are_said_at_the_top_of_the_chat(alice, app) -> None:
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.services.conversation.threads import importing

    records = [json.loads(line) for line in claude_code_session().splitlines() if line.strip()]
    lines = [{"sharedWith": "a log-sharing tool"}, *records, {"type": "hologram"}]
    text = "\n".join(json.dumps(r) for r in lines) + "\n"
    thread_id = importing.import_session(app, alice, "session.jsonl", text.encode())
    view = threads.load_timeline(app, alice, thread_id, limit=500)
    events = [i.content for i in view.items if i.kind != "divider"]
    assert events[0] == (
        "Imported from Claude Code; 1 line skipped: not Claude Code records; 1 line "
        "skipped: Claude Code record types this reader does not read (hologram)."
    )


def test_a_file_of_no_readable_record_is_refused_saying_why(alice, app) -> None:
    from chat_app.services.conversation.threads import importing

    with pytest.raises(importing.ImportRejected, match=r"1 line skipped: not Claude Code records"):
        importing.import_session(app, alice, "session.jsonl", b'{"sessionId": "s"}\n')


def test_the_agents_compactions_are_put_beside_batons_handoffs(alice, app) -> None:
    from chat_app.services.conversation.threads import agent_cuts, importing

    path = eval_path("real-sessions", "pi-mono", "before-compaction.jsonl")
    thread_id = importing.import_session(app, alice, path.name, path.read_bytes())
    cuts = agent_cuts.agent_cut_views(app, alice, thread_id)
    assert [c.number for c in cuts] == [1, 2]
    assert cuts[0].title == (
        "Cut 1: pi compacted after 354 messages at 175,004 tokens, keeping the last 66 "
        "whole: both texts cover the first 288"
    )
    assert cuts[0].agent_heading == "pi's summary"
    assert cuts[0].agent_summary.startswith("# Context Checkpoint")
    assert cuts[0].baton_handoff.startswith("# Handoff: session 1")
    for figures in (cuts[0].agent_figures, cuts[0].baton_figures):
        assert "tokens · requests " in figures and ", task " in figures
    # Someone else's chat, or one whose agent never compacted, has no cuts.
    assert agent_cuts.agent_cut_views(app, "bob", thread_id) == []
    plain = importing.import_session(app, alice, "s.jsonl", claude_code_session().encode())
    assert len(agent_cuts.agent_cut_views(app, alice, plain)) == 1


def test_an_aider_import_is_named_after_the_request_not_the_harness_prompt(alice, app) -> None:
    from chat_app.services.conversation.threads import chats as threads
    from chat_app.services.conversation.threads import importing
    from tests.shared_data import eval_path

    log = eval_path("aider-chat-history", "chat-history.md")
    thread_id = importing.import_session(app, alice, log.name, log.read_bytes())
    view = threads.load_timeline(app, alice, thread_id, limit=1, with_meter=False)
    assert view.thread.title == "Use the Spinner instead of the inlined custom spinner (imported)"
