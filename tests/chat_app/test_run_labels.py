"""Issue 19: the model label appears once per run, not under every reply."""

from __future__ import annotations

from chat_app.services.presentation.run_labels import RunLabeller
from chat_app.services.presentation.views import TimelineItem


def _items() -> list[TimelineItem]:
    def reply(key: str, model: str = "Offline simulator") -> TimelineItem:
        return TimelineItem(key=key, kind="message", role="assistant", content=key, model=model)

    return [
        TimelineItem(key="u1", kind="message", role="user", content="build it"),
        reply("a1"),
        TimelineItem(key="t1", kind="tool", model="Offline simulator"),
        reply("a2"),
        reply("a3", "openai-compatible:fake-model"),
        TimelineItem(key="u2", kind="message", role="user", content="more"),
        reply("a4"),
        TimelineItem(key="d2", kind="divider", session_number=2),
        reply("a5"),
    ]


def test_a_run_names_its_model_on_its_first_reply_only() -> None:
    labeller = RunLabeller()
    labels = {i.key: i.model for i in map(labeller.apply, _items()) if i.role == "assistant"}
    assert labels == {
        "a1": "Offline simulator",
        "a2": "",
        "a3": "openai-compatible:fake-model",  # another model: named again
        "a4": "Offline simulator",  # a new run
        "a5": "Offline simulator",
    }  # a new session
