"""Client-side helpers returned by chat events: scrolling, and Escape to stop.

The scroll helpers run after the state update that precedes them, but React may not have
painted the new rows yet, so each one waits for the target to exist before scrolling. Those
every chat page installs live in /baton-chat.js, loaded with the page: here they are only
called, so a page load does not carry their code over the websocket.
"""

from __future__ import annotations

import json
from typing import Any

import reflex as rx

__all__ = [
    "scroll_to_bottom",
    "scroll_to_anchor",
    "escape_stops",
    "outbox_accepted",
    "outbox_refused",
    "outbox_unsent",
    "remember_place",
    "restore_place",
]

# window.batonScrollToBottom is /baton-chat.js's (loaded with the page): forced (a chat just
# opened, a message sent) it keeps the view at the bottom while the rows settle; otherwise it
# follows a new row only when the reader is near the bottom.
_SCROLL_TO_BOTTOM = "window.batonScrollToBottom && window.batonScrollToBottom(true)"
_FOLLOW = "window.batonScrollToBottom && window.batonScrollToBottom(false)"

_SCROLL_TO_ANCHOR = """
(() => {
  const anchor = %(anchor)s;
  let tries = 0;
  window.__batonScrollGen = (window.__batonScrollGen || 0) + 1;  // a settling scroll stops
  const go = () => {
    const el = document.getElementById(anchor);
    if (!el) { if (tries++ < 40) setTimeout(go, 50); return; }
    el.scrollIntoView({block: "start"});
    el.classList.remove("baton-flash");
    void el.offsetWidth;
    el.classList.add("baton-flash");
  };
  go();
})()
"""


# "Load earlier" puts rows above the one being read: note where that row is before the
# load, and put it back there once the new rows are painted.
_REMEMBER_PLACE = """
(() => {
  const items = [...document.querySelectorAll('#timeline .baton-item')];
  const seen = items.find((el) => el.getBoundingClientRect().bottom > 0);
  window.__batonPlace = seen ? {key: seen.dataset.key, top: seen.getBoundingClientRect().top,
                                first: items[0].dataset.key} : null;
})()
"""

_RESTORE_PLACE = """
(() => {
  const place = window.__batonPlace;
  if (!place) return;
  // The reader scrolling (/baton-reader.js) wins: holding the place against them would
  // pull the page back under their hand for seconds.
  const started = performance.now();
  const gen = window.__batonScrollGen = (window.__batonScrollGen || 0) + 1;
  let tries = 0, steady = 0;
  const fix = () => {
    if (window.__batonReaderAt > started || window.__batonScrollGen !== gen) return;
    const first = document.querySelector('#timeline .baton-item');
    const el = document.querySelector(`#timeline .baton-item[data-key="${CSS.escape(place.key)}"]`);
    if (!el || !first || first.dataset.key === place.first) {
      if (tries++ < 200) setTimeout(fix, 50);  // the rows may take a while on a busy server
      return;
    }
    const off = el.getBoundingClientRect().top - place.top;
    if (Math.abs(off) > 1) { window.scrollBy(0, off); steady = 0; } else { steady += 1; }
    if (steady < 3 && tries++ < 260) setTimeout(fix, 50);
  };
  fix();
})()
"""


def remember_place() -> rx.event.EventSpec:
    return rx.call_script(_REMEMBER_PLACE)


def restore_place() -> rx.event.EventSpec:
    """After rows were put above the reader: keep the row they were reading where it was."""
    return rx.call_script(_RESTORE_PLACE)


def scroll_to_bottom(force: bool = False) -> rx.event.EventSpec:
    """Follow new rows to the bottom, unless the reader scrolled away (or ``force``)."""
    return rx.call_script(_SCROLL_TO_BOTTOM if force else _FOLLOW)


def scroll_to_anchor(anchor: str) -> rx.event.EventSpec:
    """Scroll the row with id ``anchor`` to the top of the view, once it is rendered."""
    return rx.call_script(_SCROLL_TO_ANCHOR % {"anchor": json.dumps(anchor)})


def escape_stops() -> rx.event.EventSpec:
    """Let Escape stop a running turn or cancel a running handoff (/baton-chat.js)."""
    return rx.call_script("window.batonChat && window.batonChat.escapeStops()")


# The composer's outbox lives in /baton-outbox.js (loaded by every page); these tell it what
# the server did with a message it sent.
def outbox_accepted(client_id: str) -> rx.event.EventSpec:
    """The message is stored: the browser forgets its copy and empties the composer."""
    return rx.call_script(
        f"window.batonOutbox && window.batonOutbox.accepted({json.dumps(client_id)})"
    )


def outbox_refused(client_id: str) -> rx.event.EventSpec:
    """The message was refused: the browser forgets its copy; the text stays to be fixed."""
    return rx.call_script(
        f"window.batonOutbox && window.batonOutbox.refused({json.dumps(client_id)})"
    )


def outbox_unsent(thread_id: str, callback: Any) -> rx.event.EventSpec:
    """Ask the browser for this chat's messages that were never acknowledged."""
    return rx.call_script(
        f"window.batonOutbox ? window.batonOutbox.unsent({json.dumps(thread_id)}) : []",
        callback=callback,
    )
