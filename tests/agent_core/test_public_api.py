"""The engine's public API is pinned: adding or removing a name is a deliberate change."""

import agent_core

EXPECTED = {
    "BatonError", "CompactionMiddleware", "ConfigurationError", "ContextEdit", "ContextEstimator",
    "ContextOverflowError", "ContextPolicy", "ContextResetMiddleware", "Decision", "FileChange",
    "GroundedFacts", "HandoffArtifact", "HandoffCancelled", "HandoffError", "HandoffGenerationError",
    "HandoffResult", "InMemoryStore", "MessageRejected", "MessageTooLarge",
    "ModelInfo", "NewMessage", "NothingToHandOff",
    "PendingRecord", "ProviderError", "ResolvedModel", "Sandbox", "SessionRecord", "SessionStore",
    "SimulatorChatModel", "StoreError", "StoredMessage", "ThreadRunner", "TodoCompressionMiddleware",
    "TokenCounter", "TokenEstimate", "Transcript", "TranscriptFormatError", "TurnSetup",
    "build_context", "build_middleware", "effective_strategy", "extract_facts", "generate_handoff",
    "handoff_context_message", "install_log_redaction", "load_transcript", "make_policy",
    "model_info", "plan", "redact_text", "redact_url", "resolve_model",
}


def test_public_api_is_pinned() -> None:
    assert set(agent_core.__all__) == EXPECTED


def test_every_public_name_resolves() -> None:
    for name in agent_core.__all__:
        assert getattr(agent_core, name) is not None
