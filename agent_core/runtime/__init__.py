"""Running a turn: the agent graph, its middleware, the session coordinator, the thread
runner, the start lane, the turn lock and user control over resets."""

from agent_core.runtime._agent import DEFAULT_SYSTEM_PROMPT
from agent_core.runtime._coordinator import SessionCoordinator
from agent_core.runtime._lanes import begin_start
from agent_core.runtime._lanes import starting as in_start_lane
from agent_core.runtime._middleware import (
    CompactionMiddleware,
    ContextResetMiddleware,
    TodoCompressionMiddleware,
    build_middleware,
)
from agent_core.runtime._runner import STOPPED_NOTE, ThreadRunner
from agent_core.runtime._turn import TurnSetup
from agent_core.runtime._turn_start import awaits_turn, enter_turn_lock, take_turn_lock, turn_waits
from agent_core.runtime._user_control import (
    defer_next_trigger,
    pending_review,
    request_handoff,
    resolve_review,
    review_opening,
)

__all__ = [
    "CompactionMiddleware",
    "ContextResetMiddleware",
    "DEFAULT_SYSTEM_PROMPT",
    "STOPPED_NOTE",
    "SessionCoordinator",
    "ThreadRunner",
    "TodoCompressionMiddleware",
    "TurnSetup",
    "awaits_turn",
    "begin_start",
    "build_middleware",
    "defer_next_trigger",
    "enter_turn_lock",
    "in_start_lane",
    "pending_review",
    "request_handoff",
    "resolve_review",
    "review_opening",
    "take_turn_lock",
    "turn_waits",
]
