"""Feedback on a reply through the service the chat page uses: stored once per reply,
refused with the reason, exported, and counted per assistant for /admin."""

from __future__ import annotations

import json

import pytest

from chat_app.services.conversation.threads import export, feedback
from tests.chat_app.test_sharing_service import OWNER, STRANGER, database, thread_with  # noqa: F401

TASK = "Write a tiny greeting module with a test"


def _first_reply(app, thread_id: str) -> int:
    rows = [row for s in app.store.sessions(thread_id) for row in app.store.messages(s.id)]
    return next(row.seq for row in rows if row.role == "assistant")


def test_a_reply_is_rated_once_rated_again_and_cleared(app) -> None:
    thread_id = thread_with(app, TASK)
    seq = _first_reply(app, thread_id)
    assert feedback.rate_reply(app, OWNER, thread_id, seq, "down", "  Too long.  ") == "down"
    assert feedback.rate_reply(app, OWNER, thread_id, seq, "up") == "up"
    stored = feedback.thread_feedback(app, OWNER, thread_id)
    assert list(stored) == [seq]
    assert (stored[seq].rating, stored[seq].note) == ("up", "")
    assert feedback.rate_reply(app, OWNER, thread_id, seq, "") == ""
    assert feedback.thread_feedback(app, OWNER, thread_id) == {}


@pytest.mark.parametrize(
    ("who", "rating", "note", "reason"),
    [
        (STRANGER, "up", "", "does not exist"),
        (OWNER, "meh", "", "up or down"),
        (OWNER, "down", "x" * (feedback.NOTE_CHARS + 1), "at most 2,000 characters"),
    ],
)
def test_a_rating_is_refused_with_the_reason_and_nothing_stored(
    app, who: str, rating: str, note: str, reason: str
) -> None:
    thread_id = thread_with(app, TASK)
    with pytest.raises(feedback.FeedbackRefused, match=reason) as refused:
        feedback.rate_reply(app, who, thread_id, _first_reply(app, thread_id), rating, note)
    assert (refused.value.field, refused.value.code) == {
        "does not exist": ("", "chat_gone"),
        "up or down": ("rating", "unknown_rating"),
        "at most 2,000 characters": ("note", "note_too_long"),
    }[reason]
    assert feedback.thread_feedback(app, OWNER, thread_id) == {}


def test_only_a_reply_can_be_rated(app) -> None:
    thread_id = thread_with(app, TASK)
    rows = [row for s in app.store.sessions(thread_id) for row in app.store.messages(s.id)]
    asked = next(row.seq for row in rows if row.role == "user")
    with pytest.raises(feedback.FeedbackRefused, match="Only a reply") as refused:
        feedback.rate_reply(app, OWNER, thread_id, asked, "up")
    assert refused.value.code == "not_a_reply"


def test_ratings_are_exported_and_counted_per_assistant(app) -> None:
    thread_id = thread_with(app, TASK)
    seq = _first_reply(app, thread_id)
    feedback.rate_reply(app, OWNER, thread_id, seq, "down", "It skipped the test.")
    as_json = json.loads(export.export_json(app, OWNER, thread_id))
    rated = [m for s in as_json["sessions"] for m in s["messages"] if "feedback" in m]
    assert [(m["seq"], m["feedback"]) for m in rated] == [
        (seq, {"rating": "down", "note": "It skipped the test."})
    ]
    assert "_Rated down_\n\n> It skipped the test." in export.export_markdown(app, OWNER, thread_id)

    assistant_id = _assistant_of(app, thread_id)
    summary = feedback.assistant_feedback(app, assistant_id)
    assert (summary.up, summary.down, summary.notes) == (0, 1, ["👎 It skipped the test."])


def _assistant_of(app, thread_id: str) -> str:
    from chat_app.services.conversation.threads import chats as threads

    return threads.owned_thread(app, OWNER, thread_id).assistant_id
