"""A replay's context: the messages a chat would send, and the edits the app would make to them.

:class:`ReplayContext` is what :func:`agent_core.strategies._pipeline.before_call` works on in
a replay, as the :class:`~agent_core.runtime._coordinator.SessionCoordinator` is in a chat: it measures
(the assistant's system prompt and tools included, calibrated by the transcript's reported
usage), masks old tool outputs with the placeholders the app writes (``read_history`` of the
row in its session, when the assistant has the history tools), compacts with the model-free
facts summary and opens a new session from a handoff, carrying the user's unanswered
messages over as the app does. No store: the session's rows are counted, not kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from langchain_core.messages import BaseMessage, HumanMessage

from agent_core.accounting._calibration import ContextEstimator, TokenEstimate
from agent_core.context._build import MASKED, context_kind, summary_message
from agent_core.context._compaction import facts_summary
from agent_core.history._tools import read_history_call
from agent_core.policy import ContextPolicy
from agent_core.runtime._coordinator import CARRIED_OVER, unanswered_requests
from agent_core.storage._records import ContextEdit
from agent_core.strategies._cutoff import safe_cutoff
from agent_core.strategies._masking import mask_candidates, placeholder
from agent_core.strategies._pipeline import opening_messages, projected_after_compaction

__all__ = ["ReplayContext", "MaskResult", "CompactionResult"]


class MaskResult(NamedTuple):
    outputs: int
    tokens_before: int
    tokens_after: int


class CompactionResult(NamedTuple):
    summarized: int


class ReplayContext:
    """The open session's context in a replay, and its edits (see the module docstring)."""

    def __init__(
        self,
        estimator: ContextEstimator,
        policy: ContextPolicy,
        *,
        system_prompt: str | None = None,
        tools: Sequence[Any] = (),
        history_tools: bool = False,
        summary_tokens: int = 800,
    ) -> None:
        self.estimator = estimator
        self.policy = policy
        self.system = system_prompt or None
        self.tools = list(tools) or None
        self.history_tools = history_tools
        self.summary_tokens = summary_tokens
        self.messages: list[BaseMessage] = []
        #: The transcript index of each message (None: a handoff or a summary).
        self.origin: list[int | None] = []
        #: The open session's own messages as they came, whatever was masked or compacted
        #: since (the app's handoff reads its facts from the stored originals), and their
        #: transcript indexes.
        self.originals: list[BaseMessage] = []
        self.original_index: list[int] = []
        self.session = 1
        self._rows = 0  # rows the open session has stored (read_history numbers them)
        self._position: dict[int, int] = {}  # transcript index -> its row in its session
        self.last_mask: MaskResult | None = None

    # what the pipeline asks ----------------------------------------------------------
    def count(self, message: BaseMessage) -> int:
        return self.estimator.counter.count_message(message)

    def measure(self, messages: Sequence[BaseMessage] | None = None) -> TokenEstimate:
        return self.estimator.estimate(
            list(self.messages if messages is None else messages),
            system=self.system,
            tools=self.tools,
        )

    def observe(self, reported: int) -> None:
        """The provider's figure for the context as it is (the transcript's own prompt)."""
        self.estimator.observe(self.messages, reported, system=self.system, tools=self.tools)

    def head_fraction(self, messages: Sequence[BaseMessage]) -> float:
        tokens = self.estimator.counter.count(
            opening_messages(messages), system=self.system, tools=self.tools
        )
        return tokens / self.estimator.info.context_window

    def projected_after_compaction(
        self, messages: Sequence[BaseMessage], estimate: TokenEstimate
    ) -> float:
        return projected_after_compaction(
            messages,
            estimate.tokens,
            estimate.window,
            keep_recent_tokens=self.policy.keep_recent_tokens,
            summary_tokens=self.summary_tokens,
            count=self.count,
        )

    def mask(
        self, messages: Sequence[BaseMessage], utilization: float | None = None
    ) -> list[BaseMessage] | None:
        """The app's mask over the open session (``messages`` is its context)."""
        picked = mask_candidates(messages, self.policy.keep_recent_tokens, self.count)
        if not picked:
            return None
        masked, before, after = list(messages), 0, 0
        count_text = self.estimator.counter.count_text
        for index in picked:
            message = masked[index]
            tokens = self.count(message)
            origin = self.origin[index]
            row = self._position.get(origin) if origin is not None else None
            reread = (
                read_history_call(self.session, row)
                if self.history_tools and row
                else "running the tool again"
            )
            text = placeholder(str(message.name or "tool"), tokens, reread)
            masked[index] = message.model_copy(
                update={
                    "content": text,
                    "additional_kwargs": {**message.additional_kwargs, MASKED: True},
                }
            )
            before, after = before + tokens, after + count_text(text)
        self.last_mask = MaskResult(len(picked), before, after)
        self._rows += 1  # the marker row
        return masked

    def locate(self, index: int) -> tuple[int, int] | None:
        """Where the open session's original message ``index`` is stored: (session, its
        1-based row, markers and the handoff counted), as ``read_history`` names it."""
        if not 0 <= index < len(self.original_index):
            return None
        row = self._position.get(self.original_index[index])
        return (self.session, row) if row else None

    # what the replay does --------------------------------------------------------------
    def append(self, message: BaseMessage, index: int) -> None:
        self.messages.append(message)
        self.origin.append(index)
        self.originals.append(message)
        self.original_index.append(index)
        self._rows += 1
        self._position[index] = self._rows

    def adopt(self, messages: list[BaseMessage]) -> None:
        """The context after a mask (same messages, same order)."""
        assert len(messages) == len(self.messages)
        self.messages = messages

    def compact(self) -> CompactionResult | None:
        """Summarize the older part in place, as the app's compaction does; None when fewer
        than two messages would be summarized (the app then leaves the context as it is)."""
        cut = safe_cutoff(self.messages, self.policy.keep_recent_tokens, self.count)
        head = [i for i in range(cut) if context_kind(self.messages[i]) in ("handoff", "pinned")]
        older = [self.messages[i] for i in range(cut) if i not in head]
        if len(older) < 2:
            return None
        summary = summary_message(ContextEdit(kind="compaction", summary=facts_summary(older)))
        self.messages = [*(self.messages[i] for i in head), summary, *self.messages[cut:]]
        self.origin = [*(self.origin[i] for i in head), None, *self.origin[cut:]]
        self._rows += 1  # the marker row
        return CompactionResult(len(older))

    def open_session(self, opening: str) -> None:
        """Start the next session from the handoff text ``opening``; the user's messages the
        model had not answered yet are carried over verbatim."""
        unanswered = unanswered_requests(self.messages)
        where = {id(m): i for i, m in enumerate(self.messages)}
        indexes = [self.origin[where[id(m)]] for m in unanswered]
        # Marked as the app marks them: already among the requests the handoff holds.
        carried = [
            m.model_copy(
                update={
                    "additional_kwargs": {
                        **m.additional_kwargs,
                        CARRIED_OVER: m.id or f"message-{index}",
                    }
                }
            )
            for m, index in zip(unanswered, indexes, strict=True)
        ]
        self.session += 1
        self.messages = [
            HumanMessage(opening, additional_kwargs={"baton_kind": "handoff"}),
            *carried,
        ]
        self.origin = [None, *indexes]
        self.originals = list(carried)
        self.original_index = [i for i in indexes if i is not None]
        self._rows, self._position = 1, {}
        for index in indexes:
            self._rows += 1
            if index is not None:
                self._position[index] = self._rows
