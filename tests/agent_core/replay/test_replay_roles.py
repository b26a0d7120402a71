"""After a reset in a SWE-agent replay, the tools' observations (user-role turns) are never
the user's open request (issue 42: "What was found" 8)."""

from __future__ import annotations

from agent_core.replay import ReplayReset
from agent_core.replay._run import replay
from tests.shared_data import eval_path


def test_swe_agent_observations_are_never_requests_after_a_reset() -> None:
    traj = next(
        eval_path("swe-agent-trajectories").rglob("marshmallow-code__marshmallow-1867.traj")
    )
    events = list(
        replay(str(traj), model="gpt-4o", window=4000, strategy="reset", mask_threshold=None)
    )
    resets = [e for e in events if isinstance(e, ReplayReset)]
    assert len(resets) >= 2
    for event in resets:
        handoff = event.handoff
        assert handoff.goal.startswith("We're currently solving")
        # Only the task is the user's; an observation is never listed or "answered".
        assert handoff.user_messages == [], handoff.user_messages
        assert not any("open request" in line for line in handoff.in_progress)
