"""Baton's engine: context accounting, resets with structured handoffs, compaction.

The public API is what ``__all__`` lists; everything else is internal and may change.
"""

from agent_core.calibration import ContextEstimator, TokenEstimate
from agent_core.context import build_context
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
    TranscriptFormatError,
)
from agent_core.handoff.artifact import FileChange, HandoffArtifact, handoff_context_message
from agent_core.handoff.facts import GroundedFacts, extract_facts
from agent_core.handoff.generation import HandoffResult, generate_handoff
from agent_core.memory_store import InMemoryStore
from agent_core.middleware import (
    CompactionMiddleware,
    ContextResetMiddleware,
    TodoCompressionMiddleware,
    build_middleware,
)
from agent_core.models import ModelInfo, model_info
from agent_core.policy import ContextPolicy, make_policy
from agent_core.ports import SessionStore
from agent_core.providers.registry import ResolvedModel, resolve_model
from agent_core.providers.simulator import SimulatorChatModel
from agent_core.records import ContextEdit, NewMessage, PendingRecord, SessionRecord, StoredMessage
from agent_core.redaction import install_log_redaction, redact_text, redact_url
from agent_core.runner import ThreadRunner
from agent_core.sandbox import Sandbox
from agent_core.strategies.plan import Decision, effective_strategy, plan
from agent_core.tokens import TokenCounter
from agent_core.transcripts import Transcript, load_transcript
from agent_core.turn import TurnSetup

__all__ = [
    "BatonError",
    "CompactionMiddleware",
    "ConfigurationError",
    "ContextEdit",
    "ContextEstimator",
    "ContextOverflowError",
    "ContextPolicy",
    "ContextResetMiddleware",
    "Decision",
    "FileChange",
    "GroundedFacts",
    "HandoffArtifact",
    "HandoffCancelled",
    "HandoffError",
    "HandoffGenerationError",
    "HandoffResult",
    "InMemoryStore",
    "MessageRejected",
    "MessageTooLarge",
    "ModelInfo",
    "NewMessage",
    "NothingToHandOff",
    "PendingRecord",
    "ProviderError",
    "ResolvedModel",
    "Sandbox",
    "SessionRecord",
    "SessionStore",
    "SimulatorChatModel",
    "StoreError",
    "StoredMessage",
    "ThreadRunner",
    "TodoCompressionMiddleware",
    "TokenCounter",
    "TokenEstimate",
    "Transcript",
    "TranscriptFormatError",
    "TurnSetup",
    "build_context",
    "build_middleware",
    "effective_strategy",
    "extract_facts",
    "generate_handoff",
    "handoff_context_message",
    "install_log_redaction",
    "load_transcript",
    "make_policy",
    "model_info",
    "plan",
    "redact_text",
    "redact_url",
    "resolve_model",
]
