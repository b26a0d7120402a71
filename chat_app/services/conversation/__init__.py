"""Use cases on a chat, in two rooms: ``runs`` (what makes the agent answer: send, resume,
stop, cut turns, replies, reset control, a new chat's first message) over ``threads`` (the
chats as kept things: the list, loading, titles, forks, sharing, export, importing, replays,
markers, undo, the workspace, search, settings). Both build on presentation/ and runtime/
below them."""
