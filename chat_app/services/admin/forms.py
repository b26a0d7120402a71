"""The assistant settings form: what it submits, and its parsing and checks (pure).

Thresholds are typed as percentages and stored as fractions. The policy checks are the
engine's own (:func:`agent_core.make_policy`), the same the runtime applies each turn, so a
saved assistant always runs; a refusal names the form field it is about.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, ValidationError

from agent_core import ConfigurationError, make_policy, model_info, resolve_model
from agent_core.providers import PROVIDERS, SIMULATOR_NAMES, registry_name
from agent_core.sandbox import sandbox_unavailable_reason
from chat_app.db.models import AssistantCreate
from chat_app.errors import Refused
from chat_app.settings import Settings

__all__ = [
    "SIMULATOR",
    "SettingsRejected",
    "AssistantForm",
    "validate_form",
    "percent_text",
    "change_text",
    "resolved_strategy",
    "model_facts",
    "commands_note",
]

SIMULATOR = "simulator"


class SettingsRejected(Refused):
    """The submitted settings are invalid; the message says what to fix, ``field`` (a form
    field's name, or "" for the whole form) where to show it."""

    default_code = "invalid_setting"


class AssistantForm(BaseModel):
    """What the admin form submits: text fields as typed, parsed by :func:`validate_form`.
    Thresholds are percentages ("80" or "80%"), stored as fractions (0.8)."""

    model_config = ConfigDict(extra="forbid")

    name: str = ""
    model: str = SIMULATOR
    system_prompt: str = ""
    context_strategy: str = "auto"
    compact_threshold: str = "50"
    mask_threshold: str = "35"  # empty: no masking
    reset_threshold: str = "80"
    keep_recent_tokens: str = "2000"
    window_override: str = ""
    pinned_paths: str = ""  # one per line
    history_tools: str = "on"  # "on" or "off": search_history and read_history
    warn_threshold: str = ""  # empty: 10 points below the threshold that acts
    review_handoffs: str = "off"  # "on" or "off"
    sandbox_network: str = "off"  # "on" or "off": sandboxed commands reach the network


def _percent(label: str, raw: str, field: str) -> float:
    """A threshold typed as a percentage ("80", "80%", "72.5") as a fraction (0.8)."""
    typed = raw.strip()
    try:
        value = float(typed.removesuffix("%").strip())
    except ValueError:
        raise SettingsRejected(f"{label} must be a percentage, e.g. 80.", field=field) from None
    # Below 1 is almost surely a fraction typed the old way (0.8 meaning 80%).
    if not 1 <= value <= 100:
        raise SettingsRejected(
            f"{label} must be a percentage from 1 to 100 (80 means 80%), got {typed}.",
            field=field,
        )
    return round(value / 100, 4)


def percent_text(fraction: float) -> str:
    """A stored threshold as the form shows it: 0.8 -> "80", 0.355 -> "35.5"."""
    return f"{round(fraction * 100, 2):g}"


def change_text(field: str, value: object) -> str:
    """A value of the change history as the form shows it: thresholds as percentages."""
    if (
        field.endswith("_threshold")
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    ):
        return f"{percent_text(float(value))}%"
    return value if isinstance(value, str) else json.dumps(value)


def _model_name(raw: str) -> str:
    name = raw.strip()
    if name == SIMULATOR:
        return name
    provider, _, model = name.partition(":")
    if not provider.strip() or not model.strip():
        raise SettingsRejected(
            f"Model must be written provider:model (e.g. anthropic:claude-sonnet-4-6) or "
            f"'{SIMULATOR}', got {name!r}.",
            field="model",
        )
    if provider.strip() not in PROVIDERS and name not in SIMULATOR_NAMES:
        # Saved, it would take down every chat of the assistant; refuse it here instead.
        raise SettingsRejected(
            f"Unknown model provider {provider.strip()!r}: use one of {', '.join(PROVIDERS)} "
            f"(for example anthropic:claude-sonnet-4-6) or '{SIMULATOR}'.",
            field="model",
        )
    return name


def validate_form(form: AssistantForm) -> AssistantCreate:
    """Parse and check the form; raises :class:`SettingsRejected` with a message to show."""
    name = form.name.strip()
    if not name:
        raise SettingsRejected("Name cannot be empty.", field="name")
    strategy = form.context_strategy.strip()
    if strategy not in ("auto", "compact", "reset"):
        raise SettingsRejected(
            "Context strategy must be auto, compact or reset.", field="context_strategy"
        )
    compact = _percent("Compact threshold", form.compact_threshold, "compact_threshold")
    reset = _percent("Reset threshold", form.reset_threshold, "reset_threshold")
    mask: float | None = None
    if form.mask_threshold.strip():
        mask = _percent("Mask threshold", form.mask_threshold, "mask_threshold")
    if reset >= 1:
        raise SettingsRejected(
            "Reset threshold must be below 100%: at 100% the window is already full when it acts.",
            field="reset_threshold",
        )
    if compact >= reset:
        raise SettingsRejected(
            f"Compact threshold ({compact:.0%}) must be below the reset threshold ({reset:.0%}).",
            field="compact_threshold",
        )
    try:
        keep_recent = int(form.keep_recent_tokens.strip() or "0")
    except ValueError:
        raise SettingsRejected(
            "Keep-recent tokens must be a whole number.", field="keep_recent_tokens"
        ) from None
    if keep_recent < 0:
        raise SettingsRejected("Keep-recent tokens cannot be negative.", field="keep_recent_tokens")
    window: int | None = None
    if form.window_override.strip():
        try:
            window = int(form.window_override.strip())
        except ValueError:
            raise SettingsRejected(
                "Window override must be a whole number of tokens, or empty.",
                field="window_override",
            ) from None
        if window <= 0:
            raise SettingsRejected(
                "Window override must be a positive number of tokens, or empty.",
                field="window_override",
            )
    pinned = [line.strip() for line in form.pinned_paths.splitlines() if line.strip()]
    if form.history_tools.strip() not in ("on", "off"):
        raise SettingsRejected("History tools must be on or off.", field="history_tools")
    if form.review_handoffs.strip() not in ("on", "off"):
        raise SettingsRejected("Review handoffs must be on or off.", field="review_handoffs")
    warn: float | None = None
    if form.warn_threshold.strip():
        warn = _percent("Warn threshold", form.warn_threshold, "warn_threshold")
        trigger = reset if resolved_strategy(form.model.strip(), strategy) == "reset" else compact
        if warn >= trigger:
            raise SettingsRejected(
                f"Warn threshold ({warn:.0%}) must be below the threshold that acts "
                f"({trigger:.0%}).",
                field="warn_threshold",
            )
    if form.sandbox_network.strip() not in ("on", "off"):
        raise SettingsRejected("Network for commands must be on or off.", field="sandbox_network")
    fields = dict(
        context_strategy=strategy,
        reset_threshold=reset,
        compact_threshold=compact,
        mask_threshold=mask,
        warn_threshold=warn,
        keep_recent_tokens=keep_recent,
        window_override=window,
        pinned_paths=tuple(pinned),
    )
    try:
        # The same validation the runtime applies each turn, so a saved assistant always runs.
        make_policy(**fields)
    except ConfigurationError as error:
        # The engine names the field at fault; the form shows the reason beside it.
        message = str(error).removeprefix("invalid context policy: ")
        message = message.removeprefix(f"{error.field}: ") if error.field else message
        raise SettingsRejected(message, field=error.field, code="invalid_policy") from None
    try:
        return AssistantCreate(
            name=name,
            model=_model_name(form.model),
            system_prompt=form.system_prompt,
            context_strategy=strategy,
            reset_threshold=reset,
            compact_threshold=compact,
            mask_threshold=mask,
            keep_recent_tokens=keep_recent,
            window_override=window,
            pinned_paths=pinned,
            history_tools=form.history_tools.strip() == "on",
            warn_threshold=warn,
            review_handoffs=form.review_handoffs.strip() == "on",
            sandbox_network=form.sandbox_network.strip() == "on",
        )
    except ValidationError as error:
        raise SettingsRejected("; ".join(e["msg"] for e in error.errors())) from None


def resolved_strategy(model: str, strategy: str) -> str:
    """What ``strategy`` means for ``model``: ``auto`` becomes the model's default."""
    if strategy != "auto":
        return strategy
    try:
        return model_info(registry_name(model)).default_strategy
    except ConfigurationError:
        return "compact"


def model_facts(settings: Settings, spec: str) -> tuple[int, str]:
    """The model table's window and a one-line note about the model for the settings form:
    who answers, with no window figure (the page states one, the window the chats run on)."""
    try:
        info = model_info(registry_name(spec))
        resolved = resolve_model(spec, settings=settings.providers)
    except ConfigurationError as exc:
        return 0, str(exc)
    unknown = (
        "" if info.known else " Baton does not know this model's window; set the window override."
    )
    if resolved.is_simulator:
        return info.context_window, f"{resolved.label}{unknown}"
    return info.context_window, f"{resolved.label}.{unknown} {commands_note(settings)}"


def commands_note(settings: Settings) -> str:
    """What a real model's ``run_command`` is on this host, for the admin to read."""
    reason = sandbox_unavailable_reason(settings.sandbox_enabled)
    if reason is not None:
        return f"run_command is not offered: {reason}"
    return "run_command runs commands for real in a sandbox"
