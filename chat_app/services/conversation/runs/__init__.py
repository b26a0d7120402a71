"""A chat's runs: sending a message, answering what waits, stopping, the turns a crash cut,
regenerated replies, the control over resets, a new chat's first message, and what the page
learns while a run goes (batches, turn growth, the context chart)."""

from chat_app.services.conversation.runs.batches import in_batches
from chat_app.services.conversation.runs.chat import (
    COMMANDS,
    FIRST_MESSAGE_GRACE_SECONDS,
    new_run_id,
    parse_command,
    resume_all_queued,
    resume_detached,
    run_handoff,
    send_message,
)
from chat_app.services.conversation.runs.context_chart import thread_chart
from chat_app.services.conversation.runs.cut_turns import (
    resume_after_turn_process_loss,
    resume_cut_turns,
)
from chat_app.services.conversation.runs.new_chat import (
    chat_assistant,
    follow_up,
    has_chats,
    start_chat,
)
from chat_app.services.conversation.runs.replies import ReplyRefused, choose_reply, regenerate
from chat_app.services.conversation.runs.reset_control import (
    ResetStatus,
    ReviewRefused,
    answer_after_review,
    compact_now,
    defer_reset,
    hand_off_next_step,
    reset_status,
    settle_review,
)
from chat_app.services.conversation.runs.resuming import resume_here
from chat_app.services.conversation.runs.sending import send_here
from chat_app.services.conversation.runs.stops import stop

__all__ = [
    "COMMANDS",
    "FIRST_MESSAGE_GRACE_SECONDS",
    "ReplyRefused",
    "ResetStatus",
    "ReviewRefused",
    "answer_after_review",
    "chat_assistant",
    "choose_reply",
    "compact_now",
    "defer_reset",
    "follow_up",
    "hand_off_next_step",
    "has_chats",
    "in_batches",
    "new_run_id",
    "parse_command",
    "regenerate",
    "reset_status",
    "resume_after_turn_process_loss",
    "resume_all_queued",
    "resume_cut_turns",
    "resume_detached",
    "resume_here",
    "run_handoff",
    "send_here",
    "send_message",
    "settle_review",
    "start_chat",
    "stop",
    "thread_chart",
]
