"""The reply being streamed, held in pieces so a flush sends only the newest piece.

Reflex sends a changed var whole: were the streamed text one string, every flush (about
every 80 ms) would send the whole reply so far, and a long reply would cost the square of
its length. Here the text written so far is ``stream_0 + ... + stream_<n> + streaming``:
``streaming`` takes the new words, and once it holds ``PIECE_CHARS`` characters it becomes
the next finished piece (sent once) and starts again empty. The page shows the pieces
joined (``streamed_text``), so the markdown renders as one text.
"""

from __future__ import annotations

import functools
import operator

import reflex as rx

__all__ = ["PIECES", "PIECE_CHARS", "StreamPieces", "streamed_text", "is_streaming"]

PIECES = 24
PIECE_CHARS = 1000


class StreamPieces(rx.State, mixin=True):
    """The streamed reply; ``ChatState`` writes it through ``_stream_add``/``_stream_clear``."""

    streaming: str = ""
    # stream_0 ... stream_<PIECES - 1>: the finished pieces (declared in a loop, all alike).
    for _piece in range(PIECES):
        __annotations__[f"stream_{_piece}"] = str
        locals()[f"stream_{_piece}"] = ""
    del _piece
    _stream_pieces: int = 0

    def _stream_add(self, text: str) -> None:
        if not text:
            return
        self.streaming += text
        # The last piece takes whatever is left of a reply longer than all of them.
        if len(self.streaming) >= PIECE_CHARS and self._stream_pieces < PIECES:
            setattr(self, f"stream_{self._stream_pieces}", self.streaming)
            self._stream_pieces += 1
            self.streaming = ""

    def _stream_clear(self) -> None:
        for piece in range(self._stream_pieces):
            setattr(self, f"stream_{piece}", "")
        self._stream_pieces = 0
        if self.streaming:
            self.streaming = ""


def streamed_text(state: type[StreamPieces]) -> rx.Var[str]:
    """The reply written so far, joined in the browser."""
    pieces = [getattr(state, f"stream_{piece}") for piece in range(PIECES)]
    return functools.reduce(operator.add, [*pieces, state.streaming])


def is_streaming(state: type[StreamPieces]) -> rx.Var[bool]:
    """Whether any of the reply has arrived (its first piece, or the piece being written)."""
    return (state.stream_0 != "") | (state.streaming != "")
