import reflex as rx

from chat_app.components.timeline_item import owner_timeline_item
from chat_app.states.chat import ChatState
from chat_app.states.live_pages import PAGES


def _page(number: rx.Var[int]) -> rx.Component:
    cases = [
        (index, rx.fragment(rx.foreach(getattr(ChatState, f"live_{index}"), owner_timeline_item)))
        for index in range(PAGES)
    ]
    # Keyed by the page's number, so when the oldest page leaves, React keeps the others'
    # rows instead of drawing them again.
    return rx.fragment(rx.match(number % PAGES, *cases, rx.fragment()), key=number)


def live_pages() -> rx.Component:
    """The rows the running (or last) stream added, page by page, oldest first."""
    return rx.foreach(ChatState.live_pages, _page)
