"""Baton's engine: context accounting, resets with structured handoffs, compaction.

The door has two floors. ``agent_core.__all__`` names the concepts: the errors, the event
stream, the policy, the store's contract, the runner, the handoff, transcripts and replay.
Each room (``agent_core.runtime``, ``agent_core.storage``, ...) is a face of its own whose
``__all__`` lists what the rest of the app may use; its modules are private (``_name.py``).
The app and the benchmarks import ``agent_core`` and ``agent_core.<room>`` only.
"""

from agent_core.accounting import ModelInfo, TokenCounter, model_info
from agent_core.context import build_context, content_text
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
from agent_core.events import Event, WireEvent, parse_event
from agent_core.handoff import HandoffArtifact, HandoffResult, generate_handoff
from agent_core.policy import ContextPolicy, make_policy
from agent_core.providers import ResolvedModel, SimulatorChatModel, resolve_model
from agent_core.redaction import redact_text
from agent_core.replay import replay_file, replay_transcript
from agent_core.runtime import SessionCoordinator, ThreadRunner, TurnSetup
from agent_core.sandbox import Sandbox
from agent_core.storage import (
    ContextEdit,
    InMemoryStore,
    NewMessage,
    PendingRecord,
    SessionRecord,
    SessionStore,
    StoredMessage,
)
from agent_core.strategies import Decision, plan
from agent_core.testing import FunctionChatModel
from agent_core.tools import McpServer, make_tools
from agent_core.transcripts import Transcript, load_transcript, parse_transcript
from agent_core.validation import UserText, validate_user_message

__all__ = [
    "BatonError",
    "ConfigurationError",
    "ContextEdit",
    "ContextOverflowError",
    "ContextPolicy",
    "Decision",
    "Event",
    "FunctionChatModel",
    "HandoffArtifact",
    "HandoffCancelled",
    "HandoffError",
    "HandoffGenerationError",
    "HandoffResult",
    "InMemoryStore",
    "McpServer",
    "MessageRejected",
    "MessageTooLarge",
    "ModelInfo",
    "NewMessage",
    "NothingToHandOff",
    "PendingRecord",
    "ProviderError",
    "ResolvedModel",
    "Sandbox",
    "SessionCoordinator",
    "SessionRecord",
    "SessionStore",
    "SimulatorChatModel",
    "StoreError",
    "StoredMessage",
    "ThreadRunner",
    "TokenCounter",
    "ToolInputError",
    "Transcript",
    "TranscriptFormatError",
    "TurnSetup",
    "UserText",
    "WireEvent",
    "build_context",
    "content_text",
    "generate_handoff",
    "load_transcript",
    "make_policy",
    "make_tools",
    "model_info",
    "parse_event",
    "parse_transcript",
    "plan",
    "redact_text",
    "replay_file",
    "replay_transcript",
    "resolve_model",
    "validate_user_message",
]
