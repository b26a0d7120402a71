"""The browser half of opening a chat at one message: scroll it into view and mark it."""

from __future__ import annotations

import reflex as rx

__all__ = ["scroll_to_message"]

# Retries until the row is rendered; takes the view from a scroll to the bottom that the
# page's load started (``__batonScrollGen``, chat_app.states.scripts), and scrolls once more a
# moment later, in case the rows it scrolled among were still settling.
_SCROLL_TO_MESSAGE = """
(() => {
  let tries = 0;
  window.__batonScrollGen = (window.__batonScrollGen || 0) + 1;
  const go = (again) => {
    const el = document.querySelector('.baton-item[data-seq="%(seq)d"]');
    if (!el) { if (tries++ < 60) setTimeout(() => go(again), 50); return; }
    el.scrollIntoView({block: "center"});
    el.setAttribute("data-found", "true");
    setTimeout(() => el.removeAttribute("data-found"), 4000);
    if (again) setTimeout(() => go(false), 400);
  };
  go(true);
})()
"""


def scroll_to_message(seq: int) -> rx.event.EventSpec:
    """Scroll the timeline row of stored message ``seq`` to the middle of the view."""
    return rx.call_script(_SCROLL_TO_MESSAGE % {"seq": int(seq)})
