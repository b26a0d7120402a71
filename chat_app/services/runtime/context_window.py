"""The context window a chat runs on, where it comes from, and whether settings fit in it.

One function decides the window for both the chats (:func:`chat_app.services.runtime.runtime.turn_setup`)
and the admin page, so the page cannot show one window while the chats run on another.
Precedence: the assistant's window override, then ``BATON_SIM_WINDOW`` (only for the offline
simulator: demos and browser tests see resets within a few turns), then the model table.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict

from agent_core import TokenCounter, TurnSetup, model_info
from agent_core.providers import SIMULATOR_NAMES
from agent_core.strategies import effective_strategy

__all__ = [
    "SIM_WINDOW_ENV",
    "EffectiveWindow",
    "SettingsProblem",
    "effective_window",
    "fixed_context_tokens",
    "settings_problem",
]

SIM_WINDOW_ENV = "BATON_SIM_WINDOW"

WindowSource = Literal["model", "override", "environment"]


class EffectiveWindow(BaseModel):
    """The window in tokens and what set it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tokens: int
    source: WindowSource
    model_tokens: int
    """The model table's window (what applies without an override or environment setting)."""

    @property
    def override(self) -> int | None:
        """What the policy's ``window_override`` must be for the engine to use this window."""
        return None if self.source == "model" else self.tokens

    def describe(self) -> str:
        """One line for the admin page: the window and where it comes from. The one window
        figure the page shows: the chats run on it, whatever the model table says."""
        if self.source == "override":
            origin = "the assistant's window override"
        elif self.source == "environment":
            origin = (
                f"{SIM_WINDOW_ENV} on this server, which sets the simulator's window; a "
                "window override wins over it"
            )
        else:
            origin = "the model table"
        return f"Chats run on a {self.tokens:,}-token window, from {origin}."


def effective_window(
    model_name: str,
    *,
    is_simulator: bool,
    window_override: int | None,
    simulator_window: int | None = None,
) -> EffectiveWindow:
    """The window chats on ``model_name`` (the resolved model's registry name) run on;
    ``simulator_window`` is the app's ``BATON_SIM_WINDOW`` (``Settings.sim_window``)."""
    table = model_info(model_name).context_window
    if window_override is not None:
        return EffectiveWindow(tokens=window_override, source="override", model_tokens=table)
    if is_simulator and simulator_window is not None and simulator_window > 0:
        return EffectiveWindow(tokens=simulator_window, source="environment", model_tokens=table)
    return EffectiveWindow(tokens=table, source="model", model_tokens=table)


@lru_cache(maxsize=16)
def _counter(model_name: str) -> TokenCounter:
    return TokenCounter(model_name)


def fixed_context_tokens(
    setup: TurnSetup, counter: TokenCounter | None = None, *, extra_tools: Sequence[BaseTool] = ()
) -> int:
    """What every session of ``setup`` starts with before any conversation: the system prompt,
    the tool definitions (``setup``'s and ``extra_tools``, such as MCP servers' tools loaded
    for the turn) and the handoff budget."""
    counter = counter or _counter(setup.model_name)
    tools = [*setup.tools, *extra_tools]
    return (
        counter.count_text(setup.system_prompt or "")
        + counter.count_tools(tools)
        + setup.handoff_budget_tokens
    )


class SettingsProblem(BaseModel):
    """Why an assistant's settings cannot work, and the form field to fix first."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    message: str
    field: str


def settings_problem(setup: TurnSetup, window: EffectiveWindow) -> SettingsProblem | None:
    """Why ``setup``'s settings cannot work on ``window`` (the one its chats run on), or None.

    Each rule is a way an assistant saved with it would break in its chats: a window override
    larger than a hosted model's own window (the provider refuses the request before Baton
    acts); a window too small for the fixed context (system prompt, tool definitions, handoff
    budget) plus the keep-recent span; a keep-recent span the mask threshold's tokens cannot
    hold (nothing would ever be masked); a reset threshold a new session's fixed context
    already reaches (it could never reset); a compaction that cannot get below its threshold.
    """
    fixed = fixed_context_tokens(setup, _counter(setup.model_name))
    return (
        _window_problem(setup, window, fixed)
        or _keep_problem(setup, window.tokens, fixed)
        or _strategy_problem(setup, window.tokens, fixed)
    )


def _window_problem(
    setup: TurnSetup, window: EffectiveWindow, fixed: int
) -> SettingsProblem | None:
    """An override the model cannot take, or one too small for the fixed context."""
    tokens, keep = window.tokens, setup.policy.keep_recent_tokens
    # Ollama's window is what Baton sets (num_ctx), the simulator has none of its own.
    fixed_window = (
        model_info(setup.model_name).known
        and setup.model_name not in SIMULATOR_NAMES
        and not setup.model_name.startswith("ollama:")
    )
    if window.source == "override" and tokens > window.model_tokens and fixed_window:
        return SettingsProblem(
            field="window_override",
            message=(
                f"A window override of {tokens:,} tokens is larger than the model's own window "
                f"({window.model_tokens:,}): its provider would refuse the requests before Baton "
                "compacts or resets. Use at most that, or leave it empty."
            ),
        )
    if window.source == "override" and tokens <= fixed + keep:
        return SettingsProblem(
            field="window_override",
            message=(
                f"A window override of {tokens:,} tokens cannot hold this assistant's "
                f"fixed context: about {fixed:,} tokens of system prompt, tool definitions and "
                f"handoff, plus {keep:,} keep-recent tokens. Use more than {fixed + keep:,}, or "
                "leave it empty for the model's window."
            ),
        )
    return None


def _keep_problem(setup: TurnSetup, tokens: int, fixed: int) -> SettingsProblem | None:
    """A keep-recent span masking never gets past, or that the window cannot hold."""
    policy, keep = setup.policy, setup.policy.keep_recent_tokens
    if policy.mask_threshold is not None and keep >= int(tokens * policy.mask_threshold):
        limit = int(tokens * policy.mask_threshold)
        return SettingsProblem(
            field="keep_recent_tokens",
            message=(
                f"Keep-recent tokens ({keep:,}) must be below what the mask threshold means: "
                f"{policy.mask_threshold:.0%} of the {tokens:,}-token window is {limit:,} tokens, "
                "so no tool output would ever be old enough to mask. Lower keep-recent tokens, "
                "raise the mask threshold or leave it empty."
            ),
        )
    if tokens <= fixed + keep:  # the window the chats get from the model or the environment
        return SettingsProblem(
            field="keep_recent_tokens" if keep > fixed else "system_prompt",
            message=(
                f"The chats run on a {tokens:,}-token window, which cannot hold this "
                f"assistant's fixed context: about {fixed:,} tokens of system prompt, tool "
                f"definitions and handoff, plus {keep:,} keep-recent tokens. Shorten the system "
                "prompt, lower keep-recent tokens or set a larger window override."
            ),
        )
    return None


def _strategy_problem(setup: TurnSetup, tokens: int, fixed: int) -> SettingsProblem | None:
    """A reset the fixed context already reaches, or a compaction that cannot get below its
    threshold."""
    policy, keep = setup.policy, setup.policy.keep_recent_tokens
    if effective_strategy(policy, model_info(setup.model_name).default_strategy) == "reset":
        limit = int(tokens * policy.reset_threshold)
        if fixed < limit:
            return None
        return SettingsProblem(
            field="reset_threshold",
            message=(
                f"Resetting at {policy.reset_threshold:.0%} of the {tokens:,}-token window "
                f"means {limit:,} tokens, but a new session starts with about {fixed:,} "
                "(system prompt, tool definitions, handoff): it could never reset. Raise the "
                "reset threshold or the window."
            ),
        )
    # After a compaction the session holds the instructions, the tools, the summary and the
    # kept span (no handoff in a session that only compacts).
    floor = fixed - setup.handoff_budget_tokens + setup.compaction_summary_tokens + keep
    limit = int(tokens * policy.compact_threshold)
    if floor < limit:
        return None
    return SettingsProblem(
        field="keep_recent_tokens",
        message=(
            f"Compaction cannot get below its threshold: compacting at "
            f"{policy.compact_threshold:.0%} of the {tokens:,}-token window means "
            f"{limit:,} tokens, but keeping {keep:,} recent tokens plus a "
            f"{setup.compaction_summary_tokens:,}-token summary, the system prompt and the "
            f"tool definitions already take about {floor:,}. Lower keep-recent tokens, raise "
            "the compact threshold or the window."
        ),
    )
