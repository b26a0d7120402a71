"""Components whose JavaScript library is fetched when one is first drawn, not with the page.

The chat page's script carried recharts (the context chart and the replay chart, both in
a dialog or a dock most chats never open): a chat opened by its URL downloaded and parsed
it before its newest message could show. Reflex draws a :class:`reflex.NoSSRComponent`
through ``ClientSide(() => import(lib))``, a dynamic import, which the bundler puts in a
chunk of its own; a component class that also derives from it is drawn the same way. Such
a component draws nothing until its library has arrived, so only what may appear a moment
later belongs here, and not inside Markdown (its component map leaves the dynamic import
out: ``chat_app.components.highlighted_code`` does it another way).

A library stays out of the page only when nothing on it imports that library statically:
every recharts part of a chart comes from :mod:`chat_app.components.charts`.
"""

from __future__ import annotations

import functools

import reflex as rx

__all__ = ["loaded_when_drawn"]


@functools.cache
def loaded_when_drawn(component: type[rx.Component]) -> type[rx.Component]:
    """``component``'s class, drawn through a dynamic import of its library."""
    if issubclass(component, rx.NoSSRComponent):
        return component
    # The same name (Reflex checks a chart's children by their class names); another
    # qualified name (its memo tags name the class, and must not meet the eager one's).
    return type(
        component.__name__,
        (rx.NoSSRComponent, component),
        {"__module__": __name__, "__qualname__": f"Lazy{component.__name__}"},
    )
