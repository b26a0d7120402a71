"""The engine's public API is pinned: adding or removing a name is a deliberate change."""

import agent_core

EXPECTED = {
    "BatonError", "COMPACTION_PROMPT", "CONTEXT_META", "CompactionMiddleware",
    "ConfigurationError", "ContextEdit", "ContextEstimator", "ContextOverflowError",
    "ContextPolicy", "ContextResetMiddleware", "DEFAULT_SYSTEM_PROMPT", "Decision",
    "FileChange", "FunctionChatModel", "GroundedFacts", "HandoffArtifact", "HandoffCancelled",
    "HandoffError", "HandoffGenerationError", "HandoffResult", "ImportedSession",
    "InMemoryStore", "LaneExecutor", "MARK_ROLES", "MASKED", "MAX_HITS", "MAX_MESSAGE_BYTES",
    "MAX_PATH_CHARS", "MCP_NAME_PATTERN", "McpServer", "McpToolbox", "MessageRejected",
    "MessageTooLarge", "ModelInfo", "NOT_SENT", "NewMessage", "NothingToHandOff",
    "OriginalCompaction", "PROVIDERS", "PendingRecord", "ProviderError", "QUEUED", "ReplayStep",
    "ResolvedModel", "RowMark", "SIMULATOR_LABEL", "SIMULATOR_NAMES", "Sandbox",
    "SessionCoordinator", "SessionRecord", "SessionStore", "SimulatorChatModel", "StoreError",
    "StoredMessage", "TURN_FAILED", "TURN_RESUMED", "ThreadRunner", "TodoCompressionMiddleware",
    "TokenCounter", "TokenEstimate", "ToolInputError", "ToolLoad", "Transcript",
    "TranscriptFormatError", "TurnSetup", "UNDOABLE_EVENTS", "UserText",
    "appended_request", "awaits_reply", "awaits_turn", "base_name", "begin_start",
    "build_context", "build_middleware", "command_mode", "content_text", "defer_next_trigger",
    "deferral_pending", "delivered_meta", "effective_strategy", "enter_turn_lock",
    "extract_facts", "facts_summary", "from_langchain", "generate_handoff", "get_encoding",
    "handoff_context_message", "handoff_filename", "history_matches", "in_start_lane",
    "install_log_redaction", "kept_edits", "kept_files", "known_secrets",
    "limits_from_settings", "load_transcript", "make_history_tools", "make_policy",
    "make_tools", "mask_candidates", "mask_placeholder", "model_info", "named_before",
    "named_commits", "named_places", "parse_client_order", "parse_transcript", "pending_review",
    "plan", "portable_name", "portable_names", "predecessor_prefix", "queue_slots",
    "read_history_call", "redact_argv", "redact_text", "redact_url", "registry_name",
    "render_for_summary", "replay_file", "replay_transcript", "reset_undo_refusal",
    "resolve_model", "resolve_review", "review_pending", "safe_cutoff",
    "sandbox_unavailable_reason", "sanitize_text", "search_terms", "searchable_text",
    "should_mask", "split_sessions", "starts_first", "stored_path", "take_inventory",
    "take_turn_lock", "transcript_request", "transcript_to_openai", "trigger_threshold",
    "turn_waits", "undo_position", "utcnow", "validate_user_message", "warn_threshold",
    "workspace_path",
    # the event protocol (agent_core.events)
    "AcceptedEvent", "CompactEvent", "ContextResetEvent", "DoneEvent", "ErrorEvent", "Event",
    "HandoffEvent", "MarkerEvent", "MessageEvent", "QueuedEvent", "TokenEvent",
    "UtilizationEvent", "WarningEvent", "parse_event",
}


def test_public_api_is_pinned() -> None:
    assert set(agent_core.__all__) == EXPECTED


def test_every_public_name_resolves() -> None:
    for name in agent_core.__all__:
        assert getattr(agent_core, name) is not None
