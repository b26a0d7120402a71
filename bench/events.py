"""The page's events on their way to a tab: typed (``ui_events.UiEvent``) against the plain
``{"type": ..., "data": {...}}`` dicts they replaced, side by side in one run.

A run of a chat is made of the engine's events as a simulator turn produces them (streamed
words, stored rows, the meter, a reset with its delivered message); each is translated once
(``run_events.Translator``), then carried the way the app carries it:

- across the turn process: pickled by the child and unpickled by the web worker
  (``turn_process.Channel``): typed events are pickled as they are, the old dicts as dicts;
- through Redis to other workers' tabs: ``json.dumps`` of the wire shape, and on arrival
  ``parse_ui_event`` for the typed events (the old dicts were taken as they came).

Printed: microseconds per event for each leg and the ratio typed / dict, and the bytes a
pickled event takes. Nothing here asserts on time.

Run: ``.venv/bin/python -m bench.events [--events 20000]``
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from agent_core import HandoffArtifact, SessionRecord, StoredMessage
from agent_core.events import MessageEvent, ResetComplete, TokenEvent, UtilizationEvent
from chat_app.services.presentation.run_events import Translator
from chat_app.services.presentation.ui_events import UiEvent, parse_ui_event

_AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _run_events(count: int) -> list[UiEvent]:
    """About ``count`` page events of turns shaped like the simulator's: per step ten
    streamed pieces, a reply row and the meter; a reset every 200 steps."""
    sessions = [SessionRecord(id="s1", thread_id="t", number=1, started_at=_AT)]
    translator = Translator(sessions, "Simulator")
    out: list[UiEvent] = []
    seq, session = 1, sessions[0]
    while len(out) < count:
        for piece in range(10):
            out += translator.translate(TokenEvent(text=f"word {piece} of the reply "))
        row = StoredMessage(
            id=f"m{seq}",
            thread_id="t",
            session_id=session.id,
            seq=seq,
            role="assistant" if seq % 2 else "user",
            content="The parser reads the invoice lines and totals them. " * 4,
            created_at=_AT,
        )
        out += translator.translate(MessageEvent.of(row))
        out += translator.translate(
            UtilizationEvent(tokens=seq * 40, window=200_000, basis="exact")
        )
        seq += 1
        if seq % 200 == 0:
            old, session = (
                session,
                SessionRecord(
                    id=f"s{session.number + 1}",
                    thread_id="t",
                    number=session.number + 1,
                    started_at=_AT,
                ),
            )
            out += translator.translate(
                ResetComplete(
                    old_session_id=old.id,
                    new_session_id=session.id,
                    session=session,
                    session_number=session.number,
                    trigger="auto",
                    utilization=0.8,
                    model="simulator",
                    handoff=HandoffArtifact(
                        session_number=old.number, trigger="auto", utilization=0.8, model="m"
                    ),
                    handoff_source="facts_only",
                    handoff_tokens=0,
                    handoff_input_tokens=0,
                    review=False,
                    delivered=[row.model_copy(update={"seq": seq})],
                )
            )
            seq += 1
    return out[:count]


def _per_event(work: Callable[[], Any], count: int, rounds: int = 5) -> float:
    """The best of ``rounds`` runs of ``work``, in microseconds per event."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000)
    count = parser.parse_args().events
    typed = _run_events(count)
    wire = [event.model_dump() for event in typed]  # the dicts the page was sent before
    typed_pickles = [pickle.dumps(event, pickle.HIGHEST_PROTOCOL) for event in typed]
    wire_pickles = [pickle.dumps(event, pickle.HIGHEST_PROTOCOL) for event in wire]
    typed_json = [json.dumps(event.model_dump(), default=str) for event in typed]
    wire_json = [json.dumps(event, default=str) for event in wire]
    legs = [
        (
            "turn process: pickle + unpickle",
            _per_event(lambda: [pickle.loads(pickle.dumps(e, 5)) for e in typed], count),
            _per_event(lambda: [pickle.loads(pickle.dumps(e, 5)) for e in wire], count),
        ),
        (
            "Redis out: dump + json",
            _per_event(lambda: [json.dumps(e.model_dump(), default=str) for e in typed], count),
            _per_event(lambda: [json.dumps(e, default=str) for e in wire], count),
        ),
        (
            "Redis in: json + parse",
            _per_event(lambda: [parse_ui_event(json.loads(j)) for j in typed_json], count),
            _per_event(lambda: [json.loads(j) for j in wire_json], count),
        ),
    ]
    kinds = sorted({event.type for event in typed})
    print(f"== {count:,} page events of simulator-shaped turns ({', '.join(kinds)}) ==")
    print(f"{'leg':34} {'typed µs/event':>15} {'dict µs/event':>14} {'typed/dict':>11}")
    for name, typed_us, wire_us in legs:
        print(f"{name:34} {typed_us:15.2f} {wire_us:14.2f} {typed_us / wire_us:11.2f}")
    typed_bytes = sum(map(len, typed_pickles)) / count
    wire_bytes = sum(map(len, wire_pickles)) / count
    print(
        f"{'pickled bytes per event':34} {typed_bytes:15.0f} {wire_bytes:14.0f} "
        f"{typed_bytes / wire_bytes:11.2f}"
    )


if __name__ == "__main__":
    main()
