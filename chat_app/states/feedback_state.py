"""Thumbs up or down on a reply, with an optional note (``services.conversation.threads.feedback``)."""

from __future__ import annotations

import reflex as rx

from chat_app.root import root
from chat_app.services.conversation import threads as thread_service
from chat_app.states.identity import IdentityState

__all__ = ["FeedbackState"]


def _thread_id(path: str) -> str:
    parts = [part for part in path.split("/") if part]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "t" else ""


class FeedbackState(IdentityState):
    # The open chat's ratings by the seq of the reply rated (as text: a var's keys are).
    ratings: dict[str, str] = {}

    def _thread(self) -> str:
        return _thread_id(self.router.url.path)

    @rx.event
    def load(self) -> None:
        """On the chat page's load: the chat's ratings."""
        stored = thread_service.thread_feedback(root(), self._owner(), self._thread())
        self.ratings = {str(seq): row.rating for seq, row in stored.items()}

    def _rate(self, seq: int, rating: str, note: str = ""):
        try:
            stored = thread_service.rate_reply(
                root(), self._owner(), self._thread(), int(seq), rating, note
            )
        except thread_service.FeedbackRefused as refused:
            return rx.toast.error(str(refused))
        ratings = {k: v for k, v in self.ratings.items() if k != str(seq)}
        self.ratings = {**ratings, str(seq): stored} if stored else ratings
        return None

    @rx.event
    def rate(self, seq: int, rating: str):
        """The thumb pressed: rate the reply so, or clear the rating pressing it again."""
        return self._rate(seq, "" if self.ratings.get(str(seq)) == rating else rating)

    @rx.event
    def save_note(self, form: dict):
        """The note of a rated reply (its rating kept; "down" when it had none)."""
        seq = int(form.get("seq") or 0)
        rating = self.ratings.get(str(seq)) or "down"
        refused = self._rate(seq, rating, str(form.get("note") or ""))
        return refused or rx.toast("Thanks: your note is kept with the reply.")
