"""Context utilization estimates, calibrated by the usage providers report.

A provider's ``usage_metadata["input_tokens"]`` is the truth for the prompt it was given. The
estimator keeps the latest such observation per system prompt and tool set (an "anchor") and
estimates a prompt as

    ratio * count(prompt) + overhead,    overhead = reported - ratio * count(anchor's prompt)

``count`` is our exact BPE count, system prompt and tool schemas included; ``ratio`` converts
our tokens into the provider's, learned per model family. ``overhead`` is what the provider
adds that we cannot see (a tool-use preamble, message framing, context an agent harness
injects), and it does not change with the history: for a history that extends the anchor's
this is ``reported + ratio * growth``; after a reset, a compaction or a cleared chat it still
holds. A call under another system prompt (a handoff writer, an "ask" mode) keeps its own
anchor; a prompt with no anchor of its own uses the most recent one (the system prompts'
difference is in ``count``). An estimator that has observed nothing reads the usage stored on
the history's latest reply (``usage_metadata``), so another worker process or a restarted one
is calibrated at once. With no observation at all the estimate is our count, exact for OpenAI
models (we count with their tokenizer) and scaled by a family prior otherwise.

Family priors (provider tokens per cl100k token, for English prose and code):
- Claude 1.15: Anthropic's tokenizer is not published; its counts run about 10-20% above
  cl100k on English and code (Anthropic's token-counting endpoint versus tiktoken on the same
  text). Over-estimating is the safe side: a reset fires a little early, never too late.
- Mistral 1.10 and unknown 1.10: smaller vocabularies than cl100k; same safe-side reasoning.
- Gemini, Llama 3, Qwen, DeepSeek 1.0: vocabularies of 128k-256k entries whose counts sit near
  cl100k's. These priors are rough and are replaced by the learned ratio after one observation.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Hashable, Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel, ConfigDict

from agent_core.accounting._models import Family, model_info
from agent_core.accounting._tokens import TokenCounter

__all__ = ["Basis", "TokenEstimate", "ContextEstimator", "FamilyRatios", "PRIOR_RATIOS"]

#: How a token count was had: counted exactly, or estimated with or without a learned ratio.
Basis = Literal["exact", "calibrated", "approximate"]


PRIOR_RATIOS: dict[str, float] = {
    "opus": 1.15,
    "sonnet": 1.15,
    "haiku": 1.15,
    "claude": 1.15,
    "mistral": 1.10,
    "unknown": 1.10,
}
# Families whose tokenizer is the one TokenCounter uses: our count is the provider's count.
EXACT_FAMILIES: frozenset[str] = frozenset({"gpt", "o-series", "simulator"})
# A reported/counted ratio outside this band means the provider saw context we did not (a
# hidden system prompt, files, a repo map); it says nothing about the tokenizer.
PLAUSIBLE_RATIO = (0.6, 1.8)
# A delta ratio needs enough new tokens to be more signal than noise.
MIN_DELTA_TOKENS = 200
# Anchors kept: one per system prompt and tool set in use (main agent, handoff writer, ...).
MAX_ANCHORS = 8


class TokenEstimate(BaseModel):
    """How full the context window is, and how much to trust the figure."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tokens: int
    window: int
    fraction: float
    basis: Basis


class FamilyRatios:
    """Provider tokens per counted token, per family: the prior until observations arrive.

    The ratio is the sum of reported over the sum of counted tokens across the last
    ``window`` plausible samples, so larger prompts weigh more than tiny ones.
    """

    def __init__(self, priors: dict[str, float] | None = None, *, window: int = 8) -> None:
        self._priors = dict(PRIOR_RATIOS if priors is None else priors)
        self._samples: dict[str, deque[tuple[int, int]]] = {}
        self._window = window

    def ratio(self, family: Family) -> float:
        """The learned ratio, else the prior (1.0 when the family has none)."""
        samples = self._samples.get(family)
        if samples:
            return sum(r for r, _ in samples) / sum(c for _, c in samples)
        return self._priors.get(family, 1.0)

    def learned(self, family: Family) -> bool:
        """Whether at least one observation has informed this family's ratio."""
        return bool(self._samples.get(family))

    def add(self, family: Family, reported: int, counted: int) -> bool:
        """Record one sample; implausible ones are ignored. Returns whether it was kept."""
        if counted <= 0 or not PLAUSIBLE_RATIO[0] <= reported / counted <= PLAUSIBLE_RATIO[1]:
            return False
        samples = self._samples.setdefault(family, deque(maxlen=self._window))
        samples.append((reported, counted))
        return True


class _Observation:
    __slots__ = ("messages", "reported", "counted", "tools")

    def __init__(self, messages, reported, counted, tools) -> None:  # noqa: ANN001
        self.messages = messages
        self.reported = reported
        self.counted = counted
        self.tools = tools  # held so the ids in the anchor key stay valid


class ContextEstimator:
    """Estimates prompt tokens and window utilization for one model.

    Call ``observe`` after each model call that reported usage, ``estimate`` before each call.
    Both reuse one ``TokenCounter``, so an estimate costs a cache lookup per message.
    """

    def __init__(
        self,
        model: str,
        *,
        window_override: int | None = None,
        counter: TokenCounter | None = None,
        ratios: FamilyRatios | None = None,
    ) -> None:
        self.info = model_info(model, window_override=window_override)
        self.counter = counter or TokenCounter(model)
        self.ratios = ratios or FamilyRatios()
        self._anchors: OrderedDict[Hashable, _Observation] = OrderedDict()

    def observe(
        self,
        messages: Sequence[BaseMessage],
        reported_input_tokens: int,
        *,
        system: str | None = None,
        tools: Sequence[Any] | None = None,
    ) -> None:
        """Record the provider's input-token figure for exactly this prompt."""
        counted = self.counter.count(messages, system=system, tools=tools)
        key = _key(system, tools)
        # For OpenAI families our count is the provider's tokenizer: any difference is overhead.
        if self.info.family not in EXACT_FAMILIES and not self.ratios.add(
            self.info.family, reported_input_tokens, counted
        ):
            # The full prompt hid context from us (an implausible ratio); the growth since
            # the previous call still compares like with like.
            self._learn_from_growth(
                self._anchors.get(key), messages, reported_input_tokens, counted
            )
        self._anchors[key] = _Observation(
            list(messages), reported_input_tokens, counted, list(tools or ())
        )
        self._anchors.move_to_end(key)
        if len(self._anchors) > MAX_ANCHORS:
            self._anchors.popitem(last=False)

    def estimate(
        self,
        messages: Sequence[BaseMessage],
        *,
        system: str | None = None,
        tools: Sequence[Any] | None = None,
    ) -> TokenEstimate:
        """Prompt tokens for ``messages`` and the fraction of the window they fill."""
        counted = self.counter.count(messages, system=system, tools=tools)
        family = self.info.family
        ratio = 1.0 if family in EXACT_FAMILIES else self.ratios.ratio(family)
        anchor = self._anchor(_key(system, tools), messages, system, tools)
        basis: Basis = "calibrated"
        if anchor is not None:
            # Never below our own count: a provider does not send less than the prompt.
            tokens = ratio * counted + max(anchor.reported - ratio * anchor.counted, 0)
        elif family in EXACT_FAMILIES:
            tokens, basis = counted, "exact"
        else:
            tokens = counted * ratio
            basis = "calibrated" if self.ratios.learned(family) else "approximate"
        return self._result(round(tokens), basis)

    def _anchor(
        self,
        key: Hashable,
        messages: Sequence[BaseMessage],
        system: str | None,
        tools: Sequence[Any] | None,
    ) -> _Observation | None:
        """This system prompt's and tool set's anchor, else one read from the history, else the
        most recent one."""
        anchor = self._anchors.get(key)
        if anchor is None and self._seed(messages, system, tools):
            anchor = self._anchors.get(key)
        if anchor is None:
            anchor = next(reversed(self._anchors.values()), None)
        return anchor

    def _seed(
        self, messages: Sequence[BaseMessage], system: str | None, tools: Sequence[Any] | None
    ) -> bool:
        """Observe the usage stored on the history's latest reply, if it has any.

        A reply's ``usage_metadata`` is the provider's figure for the messages before it, so
        an estimator that never saw the call (another worker, a restarted process) is
        calibrated from its first estimate. Not when a summary precedes the reply: it may
        have been written after the call, and then those messages are not what was sent.
        """
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if not isinstance(message, AIMessage):
                continue
            reported = (message.usage_metadata or {}).get("input_tokens")
            if not reported or any(
                m.additional_kwargs.get("baton_kind") == "summary" for m in messages[:index]
            ):
                return False
            self.observe(messages[:index], int(reported), system=system, tools=tools)
            return True
        return False

    def _learn_from_growth(self, previous, messages, reported, counted) -> None:  # noqa: ANN001
        if previous is None or not _extends(previous, messages):
            return
        delta_counted = counted - previous.counted
        if delta_counted >= MIN_DELTA_TOKENS:
            self.ratios.add(self.info.family, reported - previous.reported, delta_counted)

    def reset(self) -> None:
        """Forget every observation (the learned family ratios stay)."""
        self._anchors.clear()

    def release(self) -> None:
        """Between turns: keep the figures learned, not the prompts they were learned from.

        Each anchor holds a call's messages and tools, and the counter its last history: kept
        by an estimator per thread, every recent thread's whole context stayed in memory.
        The newest observation's figures stay as the fallback anchor (the next turn's first
        estimate reads the newest reply's stored usage first, ``_seed``); the next turn's
        calls make anchors of their own.
        """
        newest = next(reversed(self._anchors.values()), None)
        self._anchors.clear()
        if newest is not None:
            self._anchors[_RELEASED] = _Observation([], newest.reported, newest.counted, [])
        self.counter.forget_history()

    def _result(self, tokens: int, basis: Basis) -> TokenEstimate:
        window = self.info.context_window
        return TokenEstimate(
            tokens=max(tokens, 0), window=window, fraction=max(tokens, 0) / window, basis=basis
        )


#: The key of a released anchor: no prompt's key (a system prompt and tool ids) equals it.
_RELEASED: Hashable = ("released",)


def _key(system: str | None, tools: Sequence[Any] | None) -> Hashable:
    """Anchors are per system prompt and tool set (tools by identity: schemas are not hashed)."""
    return system, tuple(id(t) for t in tools or ())


def _extends(anchor: _Observation, messages: Sequence[BaseMessage]) -> bool:
    """Whether ``messages`` start with the anchor's messages."""
    observed = anchor.messages
    if len(messages) < len(observed):
        return False
    # List equality short-cuts on identity in C, so an unchanged prefix costs little.
    return list(messages[: len(observed)]) == observed
