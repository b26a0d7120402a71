"""Client-side helpers for reading a long chat: loading rows while scrolling, and marking
the session in view on the chip bar.

Both live in /baton-chat.js (loaded with every page) and are started once per page by the
chat's ``on_load``; they act only through what the page already has: auto-loading presses
the "Load earlier" / "Newer messages" buttons (which stay as the keyboard's way, and keep
the reader's place the same way), and the in-view mark reads each row's ``data-session``.
"""

from __future__ import annotations

import reflex as rx

__all__ = ["auto_load", "mark_session_in_view"]


def auto_load() -> rx.event.EventSpec:
    """Load earlier or newer rows when the reader scrolls near the window's edge."""
    return rx.call_script("window.batonChat && window.batonChat.autoLoad()")


def mark_session_in_view() -> rx.event.EventSpec:
    """Keep the chip of the session being read marked (``data-inview``) and in sight."""
    return rx.call_script("window.batonChat && window.batonChat.markInView()")
