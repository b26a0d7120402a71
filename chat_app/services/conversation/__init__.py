"""Use cases on a chat: send, new chat, queue and cut turns, replies, reset control, undo,
forks, pasted files, markers, export, sharing, replays, search, the workspace, the thread
list, importing, titles, stops. Each builds on presentation/ and runtime/ below it."""
