"""Baton's engine: context accounting, resets with structured handoffs, compaction.

The public API is what ``__all__`` lists; everything else is internal and may change.
"""

from agent_core.accounting.calibration import ContextEstimator, TokenEstimate
from agent_core.accounting.models import ModelInfo, model_info
from agent_core.accounting.tokens import TokenCounter, get_encoding
from agent_core.context.build import MASKED, build_context, content_text, from_langchain
from agent_core.context.compaction import COMPACTION_PROMPT, facts_summary, render_for_summary
from agent_core.errors import (
    BatonError,
    ConfigurationError,
    ContextOverflowError,
    HandoffCancelled,
    HandoffError,
    HandoffGenerationError,
    MessageRejected,
    MessageTooLarge,
    NothingToHandOff,
    ProviderError,
    StoreError,
    ToolInputError,
    TranscriptFormatError,
)
from agent_core.events import (
    AcceptedEvent,
    CompactEvent,
    ContextResetEvent,
    DoneEvent,
    ErrorEvent,
    Event,
    HandoffEvent,
    InputBlocked,
    MarkerEvent,
    MarkerKind,
    MessageEvent,
    QueuedEvent,
    ResetComplete,
    ResetEvent,
    ResetFailed,
    ResetPhase,
    ResetStarting,
    TokenEvent,
    UtilizationEvent,
    WarningEvent,
    WireEvent,
    parse_event,
)
from agent_core.handoff.artifact import (
    FileChange,
    HandoffArtifact,
    handoff_context_message,
    handoff_filename,
)
from agent_core.handoff.facts import GroundedFacts, extract_facts
from agent_core.handoff.generation import HandoffResult, generate_handoff
from agent_core.handoff.inventory import take_inventory
from agent_core.handoff.omitted import named_before, named_commits, named_places
from agent_core.handoff.request import appended_request, transcript_request
from agent_core.handoff.state_line import shown_state as handoff_state
from agent_core.history.tools import MAX_HITS, make_history_tools, read_history_call
from agent_core.policy import ContextPolicy, make_policy
from agent_core.providers.real import PROVIDERS
from agent_core.providers.registry import (
    SIMULATOR_NAMES,
    ResolvedModel,
    registry_name,
    resolve_model,
)
from agent_core.providers.simulator import SIMULATOR_LABEL, SimulatorChatModel
from agent_core.redaction import (
    install_log_redaction,
    known_secrets,
    redact_argv,
    redact_text,
    redact_url,
)
from agent_core.replay.agent_cuts import AgentCut, cuts_at_agent_compactions
from agent_core.replay.run import ReplayStep, replay_transcript
from agent_core.replay.run import replay as replay_file
from agent_core.runtime.agent import DEFAULT_SYSTEM_PROMPT
from agent_core.runtime.coordinator import SessionCoordinator
from agent_core.runtime.lanes import begin_start
from agent_core.runtime.lanes import starting as in_start_lane
from agent_core.runtime.middleware import (
    CompactionMiddleware,
    ContextResetMiddleware,
    TodoCompressionMiddleware,
    build_middleware,
)
from agent_core.runtime.runner import ThreadRunner
from agent_core.runtime.turn import TurnSetup
from agent_core.runtime.turn_start import awaits_turn, enter_turn_lock, take_turn_lock, turn_waits
from agent_core.runtime.user_control import (
    defer_next_trigger,
    pending_review,
    request_handoff,
    resolve_review,
)
from agent_core.sandbox import Sandbox, sandbox_unavailable_reason
from agent_core.sandbox.result import limits_from_settings
from agent_core.storage.client_order import client_order as parse_client_order
from agent_core.storage.client_order import predecessor_prefix, queue_slots
from agent_core.storage.fork import kept_edits, kept_files
from agent_core.storage.memory_store import InMemoryStore
from agent_core.storage.ports import SessionStore
from agent_core.storage.records import (
    MARK_ROLES,
    QUEUED,
    ContextEdit,
    NewMessage,
    PendingRecord,
    RowMark,
    SessionRecord,
    StoredMessage,
    delivered_meta,
    utcnow,
)
from agent_core.storage.search import matches as history_matches
from agent_core.storage.search import search_terms, searchable_text
from agent_core.storage.workspace import (
    MAX_PATH_CHARS,
    base_name,
    portable_name,
    portable_names,
    stored_path,
    workspace_path,
)
from agent_core.strategies.awaiting import TURN_FAILED, TURN_RESUMED, awaits_reply
from agent_core.strategies.cutoff import safe_cutoff
from agent_core.strategies.masking import mask_candidates, should_mask
from agent_core.strategies.masking import placeholder as mask_placeholder
from agent_core.strategies.plan import Decision, effective_strategy, plan
from agent_core.strategies.reset_control import (
    CONTEXT_META,
    deferral_pending,
    review_pending,
    trigger_threshold,
    warn_threshold,
)
from agent_core.strategies.undo import UNDOABLE_EVENTS, reset_undo_refusal, undo_position
from agent_core.testing import FunctionChatModel
from agent_core.tools.builtin import command_mode, make_tools
from agent_core.tools.mcp import MCP_NAME_PATTERN, McpServer, McpToolbox, ToolLoad
from agent_core.transcripts import (
    FORMAT_NAMES,
    ImportedSession,
    OriginalCompaction,
    Transcript,
    load_transcript,
    parse_transcript,
    split_sessions,
)
from agent_core.transcripts.export import transcript_to_openai
from agent_core.transcripts.transcript import NOT_SENT
from agent_core.validation import MAX_MESSAGE_BYTES, UserText, sanitize_text, validate_user_message

__all__ = [
    "AcceptedEvent",
    "AgentCut",
    "BatonError",
    "COMPACTION_PROMPT",
    "CONTEXT_META",
    "CompactEvent",
    "CompactionMiddleware",
    "ConfigurationError",
    "ContextEdit",
    "ContextEstimator",
    "ContextOverflowError",
    "ContextPolicy",
    "ContextResetEvent",
    "ResetStarting",
    "InputBlocked",
    "ResetComplete",
    "ResetFailed",
    "ResetEvent",
    "ContextResetMiddleware",
    "DEFAULT_SYSTEM_PROMPT",
    "Decision",
    "DoneEvent",
    "ErrorEvent",
    "Event",
    "FileChange",
    "FORMAT_NAMES",
    "FunctionChatModel",
    "GroundedFacts",
    "HandoffArtifact",
    "HandoffCancelled",
    "HandoffError",
    "HandoffEvent",
    "HandoffGenerationError",
    "HandoffResult",
    "ImportedSession",
    "InMemoryStore",
    "MARK_ROLES",
    "MASKED",
    "MAX_HITS",
    "MAX_MESSAGE_BYTES",
    "UserText",
    "MAX_PATH_CHARS",
    "MCP_NAME_PATTERN",
    "MarkerEvent",
    "MarkerKind",
    "McpServer",
    "McpToolbox",
    "MessageEvent",
    "MessageRejected",
    "MessageTooLarge",
    "ModelInfo",
    "NOT_SENT",
    "NewMessage",
    "NothingToHandOff",
    "OriginalCompaction",
    "PROVIDERS",
    "PendingRecord",
    "ProviderError",
    "QUEUED",
    "QueuedEvent",
    "ResetPhase",
    "ReplayStep",
    "ResolvedModel",
    "RowMark",
    "SIMULATOR_LABEL",
    "SIMULATOR_NAMES",
    "Sandbox",
    "SessionCoordinator",
    "SessionRecord",
    "SessionStore",
    "SimulatorChatModel",
    "StoreError",
    "StoredMessage",
    "TURN_FAILED",
    "TURN_RESUMED",
    "ThreadRunner",
    "TodoCompressionMiddleware",
    "TokenCounter",
    "TokenEstimate",
    "TokenEvent",
    "ToolInputError",
    "ToolLoad",
    "Transcript",
    "TranscriptFormatError",
    "TurnSetup",
    "UNDOABLE_EVENTS",
    "UtilizationEvent",
    "WarningEvent",
    "WireEvent",
    "appended_request",
    "awaits_reply",
    "awaits_turn",
    "base_name",
    "begin_start",
    "build_context",
    "build_middleware",
    "command_mode",
    "content_text",
    "defer_next_trigger",
    "deferral_pending",
    "delivered_meta",
    "cuts_at_agent_compactions",
    "effective_strategy",
    "enter_turn_lock",
    "extract_facts",
    "facts_summary",
    "from_langchain",
    "generate_handoff",
    "get_encoding",
    "handoff_context_message",
    "handoff_state",
    "handoff_filename",
    "history_matches",
    "in_start_lane",
    "install_log_redaction",
    "kept_edits",
    "kept_files",
    "known_secrets",
    "limits_from_settings",
    "load_transcript",
    "make_history_tools",
    "make_policy",
    "make_tools",
    "mask_candidates",
    "mask_placeholder",
    "model_info",
    "named_before",
    "named_commits",
    "named_places",
    "parse_client_order",
    "parse_event",
    "parse_transcript",
    "pending_review",
    "plan",
    "portable_name",
    "portable_names",
    "predecessor_prefix",
    "queue_slots",
    "read_history_call",
    "redact_argv",
    "redact_text",
    "redact_url",
    "registry_name",
    "render_for_summary",
    "replay_file",
    "replay_transcript",
    "reset_undo_refusal",
    "resolve_model",
    "request_handoff",
    "resolve_review",
    "review_pending",
    "safe_cutoff",
    "sandbox_unavailable_reason",
    "sanitize_text",
    "search_terms",
    "searchable_text",
    "should_mask",
    "split_sessions",
    "stored_path",
    "take_inventory",
    "take_turn_lock",
    "transcript_request",
    "transcript_to_openai",
    "trigger_threshold",
    "turn_waits",
    "undo_position",
    "utcnow",
    "validate_user_message",
    "warn_threshold",
    "workspace_path",
]
