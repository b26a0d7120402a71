"""Client-side helpers returned by chat events: scrolling, and Escape to stop.

The scroll helpers run after the state update that precedes them, but React may not have
painted the new rows yet, so each one waits for the target to exist before scrolling.
"""

from __future__ import annotations

import json
from typing import Any

import reflex as rx

__all__ = ["scroll_to_bottom", "scroll_to_anchor", "escape_stops", "outbox_accepted",
           "outbox_refused", "outbox_unsent", "remember_place", "restore_place"]

# Forced (a chat just opened): keep scrolling to the bottom until the rows are there and the
# page stops growing (markdown, code and fonts settle over a few frames), for up to 3 s.
# The forced call (every chat page starts with one) installs the function; the calls that
# follow each new row only name it, so a finished step does not carry this script again.
# Whoever moves the view next takes it over (``__batonScrollGen``, counted by
# /baton-reader.js): the reader (wheel, touch, keys, the scrollbar), a chip or search jump, a
# restored place. Left running, the settling pulled a chip jump made in the page's first
# seconds back to the bottom of the new rows.
_SCROLL_TO_BOTTOM = """
(() => {
  window.batonScrollToBottom = (force) => {
    const nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 400;
    if (!nearBottom && !force) return;
    if (!force) {
      setTimeout(() => window.scrollTo({top: document.body.scrollHeight}), 60);
      return;
    }
    let last = -1, steady = 0, tries = 0;
    const gen = window.__batonScrollGen = (window.__batonScrollGen || 0) + 1;
    const settle = () => {
      if (window.__batonScrollGen !== gen) return;  // the view is someone else's now
      const height = document.body.scrollHeight;
      window.scrollTo({top: height});
      const rows = document.querySelectorAll('#timeline .baton-item').length;
      steady = rows > 0 && height === last ? steady + 1 : 0;
      last = height;
      if (steady < 3 && tries++ < 60) setTimeout(settle, 50);
    };
    settle();
  };
  window.batonScrollToBottom(true);
})()
"""

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


# Escape presses the Stop / Cancel handoff button while it is shown, unless a dialog is open
# (Escape closes the dialog then). Installed once per page load; the button's own click
# handler does the rest, so the keyboard and the mouse take the same path.
_ESCAPE_STOPS = """
(() => {
  if (window.__batonEscapeStops) return;
  window.__batonEscapeStops = true;
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.isComposing) return;
    if (document.querySelector("[role=dialog], [role=alertdialog]")) return;
    const stop = document.getElementById("stop-button");
    if (!stop) return;
    event.preventDefault();
    stop.click();
  });
})()
"""


def escape_stops() -> rx.event.EventSpec:
    """Let Escape stop a running turn or cancel a running handoff."""
    return rx.call_script(_ESCAPE_STOPS)


# The composer's outbox lives in /baton-outbox.js (loaded by every page); these tell it what
# the server did with a message it sent.
def outbox_accepted(client_id: str) -> rx.event.EventSpec:
    """The message is stored: the browser forgets its copy and empties the composer."""
    return rx.call_script(f"window.batonOutbox && window.batonOutbox.accepted({json.dumps(client_id)})")


def outbox_refused(client_id: str) -> rx.event.EventSpec:
    """The message was refused: the browser forgets its copy; the text stays to be fixed."""
    return rx.call_script(f"window.batonOutbox && window.batonOutbox.refused({json.dumps(client_id)})")


def outbox_unsent(thread_id: str, callback: Any) -> rx.event.EventSpec:
    """Ask the browser for this chat's messages that were never acknowledged."""
    return rx.call_script(
        f"window.batonOutbox ? window.batonOutbox.unsent({json.dumps(thread_id)}) : []",
        callback=callback,
    )
