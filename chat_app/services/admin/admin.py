"""Per-assistant settings for the `/admin` page, behind ``BATON_ADMIN_PASSWORD``.

Without the variable every call is refused. :func:`login` trades the password for a grant (an
HMAC derived from the password, never the password itself) that the page keeps server-side
and hands back with each call; changing or removing the password invalidates every grant.
Sign-in attempts are throttled per client address and overall
(:mod:`chat_app.services.security.admin_throttle`), with the counts in the database so that every
worker process sees them.

Saved settings apply from the next turn of every thread on the assistant, because the
runtime reads the assistant at the start of each turn. Each changed value is recorded with
its time and previous value (:func:`history`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from agent_core import ConfigurationError, make_policy, model_info, resolve_model
from agent_core.providers import PROVIDERS, SIMULATOR_NAMES, registry_name
from agent_core.redaction import redact_argv
from agent_core.sandbox import sandbox_unavailable_reason
from chat_app.db import repo
from chat_app.db.models import (
    Assistant,
    AssistantCreate,
    AssistantUpdate,
    SignInFailureCount,
    utcnow,
)
from chat_app.services.runtime import runtime
from chat_app.services.runtime.backend import Backend
from chat_app.services.runtime.context_window import settings_problem
from chat_app.services.security import admin_throttle as throttle

__all__ = [
    "PASSWORD_ENV",
    "AdminRefused",
    "WrongPassword",
    "TooManyAttempts",
    "SettingsRejected",
    "AssistantInUse",
    "delete_assistant",
    "chats_on",
    "percent_text",
    "AssistantForm",
    "AssistantView",
    "ChangeView",
    "admin_enabled",
    "login",
    "list_assistants",
    "get_assistant",
    "create_assistant",
    "update_assistant",
    "history",
    "change_text",
    "validate_form",
    "require_grant",
    "current_grant",
]

PASSWORD_ENV = "BATON_ADMIN_PASSWORD"
SIMULATOR = "simulator"
_DISABLED = f"Admin is disabled: set {PASSWORD_ENV} to enable it."

_log = logging.getLogger(__name__)


class AdminRefused(PermissionError):
    """The call lacks a valid grant, or admin is not enabled on this instance."""


class WrongPassword(AdminRefused):
    """The password given to :func:`login` is not the admin password."""

    def __init__(self) -> None:
        super().__init__("Wrong password.")


class TooManyAttempts(AdminRefused):
    """Sign-in is throttled; the password was not checked. ``retry_after`` says for how long."""

    def __init__(self, decision: throttle.Decision) -> None:
        self.retry_after: timedelta = decision.retry_after
        self.everyone = decision.reason == "everyone_locked_out"
        who = "Too many failed sign-ins on this server" if self.everyone else "Too many attempts"
        super().__init__(f"{who}: try again in {throttle.wait_text(decision.retry_after)}.")


class SettingsRejected(ValueError):
    """The submitted settings are invalid; the message says what to fix, ``field`` (a form
    field's name, or "" for the whole form) where to show it."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class AssistantInUse(ValueError):
    """The assistant cannot be deleted (the last one, or no other to move its chats to)."""


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


class AssistantView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    model: str
    system_prompt: str
    context_strategy: str
    effective_strategy: str
    compact_threshold: float
    mask_threshold: float | None
    reset_threshold: float
    keep_recent_tokens: int
    window_override: int | None
    pinned_paths: list[str]
    history_tools: bool
    warn_threshold: float | None = None
    review_handoffs: bool = False
    sandbox_network: bool
    updated_at: datetime
    model_window: int = 0
    """The model table's window (what an empty override means without an environment
    setting)."""
    window: int = 0
    """The window the assistant's chats run on: the same function decides it for both."""
    window_note: str = ""
    """That window and where it comes from: model table, override or environment."""
    model_note: str = ""
    """What the admin should know about the model: its window, whether Baton knows it, and
    whether its provider is configured (otherwise the offline simulator answers)."""


class ChangeView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    previous: Any = None
    new: Any = None
    changed_at: datetime


# ----- credential ---------------------------------------------------------------------------


def admin_enabled() -> bool:
    return bool(os.environ.get(PASSWORD_ENV, ""))


def _grant_for(password: str) -> str:
    key = hashlib.sha256(password.encode("utf-8")).digest()
    return hmac.new(key, b"baton-admin-grant", hashlib.sha256).hexdigest()


def _expected_grant() -> str | None:
    password = os.environ.get(PASSWORD_ENV, "")
    return _grant_for(password) if password else None


def _count(row: SignInFailureCount | None) -> throttle.FailureCount:
    if row is None:
        return throttle.FailureCount()
    return throttle.FailureCount.model_validate(row, from_attributes=True)


def login(app: Backend, password: str, client: str, *, now: datetime | None = None) -> str:
    """A grant for the admin calls, when ``password`` matches.

    ``client`` is the caller's IP address, which the throttle counts failures by. Raises
    :class:`TooManyAttempts` (without checking the password) while the client or everyone
    is throttled, :class:`WrongPassword`, or :class:`AdminRefused` when admin is disabled.
    ``now`` replaces the clock in tests.
    """
    expected = os.environ.get(PASSWORD_ENV, "")
    if not expected:
        raise AdminRefused(_DISABLED)
    now = now or utcnow()
    scope = throttle.client_scope(client)
    # One transaction under a cross-process lock from reading the counts to recording the
    # outcome: parallel guesses cannot all read the same low count.
    with app.write(expire_on_commit=False) as db:
        repo.lock_sign_in_counts(session=db)
        stored = repo.get_sign_in_counts(session=db, scopes=[scope, throttle.EVERYONE])
        mine, everyone = _count(stored.get(scope)), _count(stored.get(throttle.EVERYONE))
        decision = throttle.decide(mine, everyone, now)
        if not decision.allowed:
            _log.debug("Admin sign-in from %s refused unchecked (%s)", scope, decision.reason)
            raise TooManyAttempts(decision)
        if hmac.compare_digest(password.encode("utf-8"), expected.encode("utf-8")):
            repo.clear_sign_in_failures(session=db, scope=scope)
            db.commit()
            _log.info("Admin signed in from %s", scope)
            return _grant_for(expected)
        mine = throttle.after_client_failure(mine, now)
        everyone = throttle.after_everyone_failure(everyone, now)
        repo.record_sign_in_failure(
            session=db,
            now=now,
            counts=[
                SignInFailureCount(scope=s, **c.model_dump())
                for s, c in ((scope, mine), (throttle.EVERYONE, everyone))
            ],
        )
        db.commit()
    _log_failure(scope, mine, everyone)
    raise WrongPassword()


def _log_failure(scope: str, mine: throttle.FailureCount, everyone: throttle.FailureCount) -> None:
    # Never the password tried: it may be the real one with a typo, or another secret.
    _log.warning(
        "Admin sign-in failed from %s (failure %d from it, %d from everyone, in the "
        "current window)",
        scope,
        mine.failures,
        everyone.failures,
    )
    # Failures are only recorded outside a lockout, so a locked count here has just started.
    if mine.locked_until is not None:
        _log.warning(
            "Admin sign-in locked for %s until %s after %d failures",
            scope,
            mine.locked_until.isoformat(timespec="seconds"),
            mine.failures,
        )
    if everyone.locked_until is not None:
        _log.warning(
            "Admin sign-in locked for everyone until %s after %d failures",
            everyone.locked_until.isoformat(timespec="seconds"),
            everyone.failures,
        )


def current_grant() -> str:
    """The grant the configured password gives; :class:`AdminRefused` when admin is disabled.
    For other ways in than the password (a one-time sign-in link)."""
    expected = _expected_grant()
    if expected is None:
        raise AdminRefused(_DISABLED)
    return expected


def require_grant(grant: str | None) -> None:
    """Refuse (:class:`AdminRefused`) a call without a valid grant; for every admin service."""
    _require(grant)


def _require(grant: str | None) -> None:
    expected = _expected_grant()
    if expected is None:
        raise AdminRefused(_DISABLED)
    if not grant or not hmac.compare_digest(grant.encode("utf-8"), expected.encode("utf-8")):
        raise AdminRefused("Sign in to change assistants.")


# ----- validation (pure) --------------------------------------------------------------------


def _percent(label: str, raw: str, field: str) -> float:
    """A threshold typed as a percentage ("80", "80%", "72.5") as a fraction (0.8)."""
    typed = raw.strip()
    try:
        value = float(typed.removesuffix("%").strip())
    except ValueError:
        raise SettingsRejected(f"{label} must be a percentage, e.g. 80.", field) from None
    # Below 1 is almost surely a fraction typed the old way (0.8 meaning 80%).
    if not 1 <= value <= 100:
        raise SettingsRejected(
            f"{label} must be a percentage from 1 to 100 (80 means 80%), got {typed}.", field
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


def _policy_field(message: str) -> str:
    """Which threshold a policy refusal is about (it names the lower of the two)."""
    lowered = message.lower()
    if "pinned" in lowered or "workspace" in lowered:
        return "pinned_paths"
    for name in ("mask", "compact", "reset"):
        if lowered.startswith(name) or f"{name} threshold" in lowered[:40]:
            return f"{name}_threshold"
    return ""


def _model_name(raw: str) -> str:
    name = raw.strip()
    if name == SIMULATOR:
        return name
    provider, _, model = name.partition(":")
    if not provider.strip() or not model.strip():
        raise SettingsRejected(
            f"Model must be written provider:model (e.g. anthropic:claude-sonnet-4-6) or "
            f"'{SIMULATOR}', got {name!r}.",
            "model",
        )
    if provider.strip() not in PROVIDERS and name not in SIMULATOR_NAMES:
        # Saved, it would take down every chat of the assistant; refuse it here instead.
        raise SettingsRejected(
            f"Unknown model provider {provider.strip()!r}: use one of {', '.join(PROVIDERS)} "
            f"(for example anthropic:claude-sonnet-4-6) or '{SIMULATOR}'.",
            "model",
        )
    return name


def validate_form(form: AssistantForm) -> AssistantCreate:
    """Parse and check the form; raises :class:`SettingsRejected` with a message to show."""
    name = form.name.strip()
    if not name:
        raise SettingsRejected("Name cannot be empty.", "name")
    strategy = form.context_strategy.strip()
    if strategy not in ("auto", "compact", "reset"):
        raise SettingsRejected(
            "Context strategy must be auto, compact or reset.", "context_strategy"
        )
    compact = _percent("Compact threshold", form.compact_threshold, "compact_threshold")
    reset = _percent("Reset threshold", form.reset_threshold, "reset_threshold")
    mask: float | None = None
    if form.mask_threshold.strip():
        mask = _percent("Mask threshold", form.mask_threshold, "mask_threshold")
    if reset >= 1:
        raise SettingsRejected(
            "Reset threshold must be below 100%: at 100% the window is already full when it acts.",
            "reset_threshold",
        )
    if compact >= reset:
        raise SettingsRejected(
            f"Compact threshold ({compact:.0%}) must be below the reset threshold ({reset:.0%}).",
            "compact_threshold",
        )
    try:
        keep_recent = int(form.keep_recent_tokens.strip() or "0")
    except ValueError:
        raise SettingsRejected(
            "Keep-recent tokens must be a whole number.", "keep_recent_tokens"
        ) from None
    if keep_recent < 0:
        raise SettingsRejected("Keep-recent tokens cannot be negative.", "keep_recent_tokens")
    window: int | None = None
    if form.window_override.strip():
        try:
            window = int(form.window_override.strip())
        except ValueError:
            raise SettingsRejected(
                "Window override must be a whole number of tokens, or empty.", "window_override"
            ) from None
        if window <= 0:
            raise SettingsRejected(
                "Window override must be a positive number of tokens, or empty.", "window_override"
            )
    pinned = [line.strip() for line in form.pinned_paths.splitlines() if line.strip()]
    if form.history_tools.strip() not in ("on", "off"):
        raise SettingsRejected("History tools must be on or off.", "history_tools")
    if form.review_handoffs.strip() not in ("on", "off"):
        raise SettingsRejected("Review handoffs must be on or off.", "review_handoffs")
    warn: float | None = None
    if form.warn_threshold.strip():
        warn = _percent("Warn threshold", form.warn_threshold, "warn_threshold")
        trigger = reset if resolved_strategy(form.model.strip(), strategy) == "reset" else compact
        if warn >= trigger:
            raise SettingsRejected(
                f"Warn threshold ({warn:.0%}) must be below the threshold that acts "
                f"({trigger:.0%}).",
                "warn_threshold",
            )
    if form.sandbox_network.strip() not in ("on", "off"):
        raise SettingsRejected("Network for commands must be on or off.", "sandbox_network")
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
        message = str(error).removeprefix("invalid context policy: ")
        raise SettingsRejected(message, _policy_field(message)) from None
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


def _model_facts(spec: str) -> tuple[int, str]:
    """The model table's window and a one-line note about the model for the settings form:
    who answers, with no window figure (the page states one, the window the chats run on)."""
    try:
        info = model_info(registry_name(spec))
        resolved = resolve_model(spec)
    except ConfigurationError as exc:
        return 0, str(exc)
    unknown = (
        "" if info.known else " Baton does not know this model's window; set the window override."
    )
    if resolved.is_simulator:
        return info.context_window, f"{resolved.label}{unknown}"
    return info.context_window, f"{resolved.label}.{unknown} {commands_note()}"


def commands_note() -> str:
    """What a real model's ``run_command`` is on this host, for the admin to read."""
    reason = sandbox_unavailable_reason()
    if reason is not None:
        return f"run_command is not offered: {reason}"
    return "run_command runs commands for real in a sandbox"


# ----- reads and writes ---------------------------------------------------------------------


def _effective_window(assistant: Assistant) -> tuple[int, str]:
    try:
        window = runtime.window_for(assistant, runtime.model_for(assistant))
    except ConfigurationError as exc:
        return 0, f"Chats on this assistant cannot run: {exc}"
    return window.tokens, window.describe()


def _check_runnable(app: Backend, data: AssistantCreate) -> None:
    """Refuse settings the chats could not work with, on the window they would run on."""
    assistant = Assistant(**data.model_dump())
    try:
        setup, resolved = runtime.turn_setup(app, "", assistant)
        problem = settings_problem(setup, runtime.window_for(assistant, resolved))
    except ConfigurationError as exc:
        raise SettingsRejected(str(exc), "model") from None
    if problem:
        raise SettingsRejected(problem.message, problem.field)


def _view(assistant: Assistant) -> AssistantView:
    # getattr, not model_dump: it refreshes attributes expired by the commit.
    derived = ("effective_strategy", "model_window", "model_note", "window", "window_note")
    data = {
        name: getattr(assistant, name) for name in AssistantView.model_fields if name not in derived
    }
    data["pinned_paths"] = list(assistant.pinned_paths or [])
    model_window, note = _model_facts(assistant.model)
    window, window_note = _effective_window(assistant)
    return AssistantView(
        **data,
        effective_strategy=resolved_strategy(assistant.model, assistant.context_strategy),
        model_window=model_window,
        model_note=note,
        window=window,
        window_note=window_note,
    )


def list_assistants(app: Backend, grant: str | None) -> list[AssistantView]:
    _require(grant)
    with app.write() as db:
        if not repo.list_assistants(session=db):
            repo.ensure_default_assistant(session=db)
        return [_view(a) for a in repo.list_assistants(session=db)]


def get_assistant(app: Backend, grant: str | None, assistant_id: str) -> AssistantView | None:
    _require(grant)
    with app.read() as db:
        assistant = repo.get_assistant(session=db, assistant_id=assistant_id)
        return _view(assistant) if assistant else None


def create_assistant(app: Backend, grant: str | None, form: AssistantForm) -> AssistantView:
    _require(grant)
    data = validate_form(form)
    _check_runnable(app, data)
    with app.write() as db:
        return _view(repo.create_assistant(session=db, data=data))


def update_assistant(
    app: Backend, grant: str | None, assistant_id: str, form: AssistantForm
) -> AssistantView | None:
    """Save the form over the assistant; recorded per changed field. None if it is gone."""
    _require(grant)
    data = validate_form(form)
    _check_runnable(app, data)
    changes = AssistantUpdate(**data.model_dump())
    with app.write() as db:
        assistant = repo.update_assistant(session=db, assistant_id=assistant_id, changes=changes)
        return _view(assistant) if assistant else None


def history(app: Backend, grant: str | None, assistant_id: str) -> list[ChangeView]:
    """The assistant's changes, newest first."""
    _require(grant)
    with app.read() as db:
        return [
            ChangeView(
                field=c.field,
                previous=_shown_change(c.field, c.previous),
                new=_shown_change(c.field, c.new),
                changed_at=c.changed_at,
            )
            for c in repo.list_assistant_changes(session=db, assistant_id=assistant_id)
        ]


def _shown_change(field: str, value: str | None) -> str | None:
    """An MCP server's change as shown: a secret on its command line redacted, also in rows
    written before commands were redacted when stored."""
    if field != "mcp_server" or not value:
        return value
    return " ".join(redact_argv(value.split(" ")))


def delete_assistant(app: Backend, grant: str | None, assistant_id: str, move_to: str) -> int:
    """Delete the assistant; its chats (every owner's) move to ``move_to``. Returns how many
    moved. Raises :class:`AssistantInUse` for the last assistant or a missing target."""
    _require(grant)
    with app.write() as db:
        others = [a.id for a in repo.list_assistants(session=db) if a.id != assistant_id]
        if not others:
            raise AssistantInUse("The last assistant cannot be deleted: chats need one.")
        if move_to not in others:
            raise AssistantInUse("Choose another assistant for this one's chats.")
        moved = repo.delete_assistant(session=db, assistant_id=assistant_id, move_to=move_to)
    if moved is None:
        raise AssistantInUse("That assistant no longer exists.")
    return moved


def chats_on(app: Backend, grant: str | None, assistant_id: str) -> int:
    """How many chats (of every owner) run on the assistant."""
    _require(grant)
    with app.read() as db:
        return repo.count_threads(session=db, assistant_id=assistant_id)
