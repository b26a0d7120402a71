"""A model-written handoff's work state checked against the evidence's: the open items it
left out of Remaining are added, items the record shows done leave Remaining, and a next step
naming done work gives way to the evidence's. Each correction is a disagreement line for the
card. Pure functions."""

from __future__ import annotations

from agent_core.handoff._grounded import Progress
from agent_core.handoff._work_state import item_ids

__all__ = ["agree_on_work"]


def _names(text: str, label: str) -> bool:
    ids = set(item_ids(label))
    return bool(ids & set(item_ids(text))) if ids else label.lower() in text.lower()


def agree_on_work(
    remaining: list[str], next_step: str, progress: Progress, evidence: dict
) -> tuple[list[str], str, list[str]]:
    """``remaining`` and ``next_step`` as the model wrote them, corrected from ``progress``
    (``evidence``: the facts-only fields), and one line per correction."""
    disagreements = []
    done = {i for item in progress.items if item.state == "done" for i in item_ids(item.label)}
    finished = [t for t in remaining if set(item_ids(t)) & done]
    if finished:
        remaining = [t for t in remaining if t not in finished]
        disagreements.append(
            "Remaining: the record shows done " + "; ".join(f"“{t[:80]}”" for t in finished)
        )
    listed = " \n ".join(remaining)
    missing = [line for line in evidence["remaining_tasks"] if not _names(listed, line)]
    if missing:
        remaining = [*remaining, *missing]
        disagreements.append(
            f"Remaining: the record has {len(missing)} open item(s) the model did not list"
        )
    open_ids = {i for item in progress.items if item.state != "done" for i in item_ids(item.label)}
    named = set(item_ids(next_step))
    if named & done and not named & open_ids:
        disagreements.append(f"Next step: “{next_step[:80]}” names work the record shows done")
        next_step = evidence["next_step"]
    return remaining, next_step, disagreements
