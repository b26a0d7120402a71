"""The keyboard shortcuts: one list, read by the help dialog and by /baton-keys.js.

A shortcut acts on an element of the page, found by a CSS selector: it clicks it (the
mouse's path, so the keyboard does exactly what a click does) or focuses it (a field inside
the sidebar is shown first). To add one, append a :class:`Shortcut`; nothing else changes.

Keys are written ``mod+shift+o``: ``mod`` is Ctrl, or Cmd on a Mac; a single character
(``?``, ``/``) is that character as typed, and is ignored while the focus is in a text
field, where it is text. Chosen to leave the browser's own shortcuts alone: Ctrl+N, Ctrl+T,
Ctrl+W, Ctrl+L and Ctrl+Shift+N are never taken.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Literal

__all__ = ["Shortcut", "SHORTCUTS", "bindings_json", "key_labels"]


@dataclasses.dataclass(frozen=True)
class Shortcut:
    label: str
    keys: tuple[str, ...]
    target: str
    action: Literal["click", "focus"] = "click"


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("New chat", ("mod+shift+o",), "#new-chat"),
    Shortcut("Focus the message box", ("shift+escape", "/"), "#composer-input", "focus"),
    Shortcut("Search chats", ("mod+k",), "#thread-search", "focus"),
    Shortcut("Show or hide the chat list", ("mod+shift+s",), "#sidebar-toggle"),
    Shortcut("Keyboard shortcuts (this list)", ("?",), "#shortcuts-button"),
)

_NAMES = {"mod": "Ctrl", "shift": "Shift", "alt": "Alt", "escape": "Esc", "enter": "Enter"}


def key_labels(combo: str) -> list[str]:
    """``mod+shift+o`` -> ``["Ctrl", "Shift", "O"]``, as the help dialog shows the keys."""
    if len(combo) == 1:
        return [combo]
    return [_NAMES.get(part, part.upper()) for part in combo.split("+")]


def bindings_json(shortcuts: tuple[Shortcut, ...] = SHORTCUTS) -> str:
    """What /baton-keys.js reads: each key combination with its action and target."""
    return json.dumps(
        [{"keys": list(s.keys), "target": s.target, "action": s.action} for s in shortcuts]
    )
