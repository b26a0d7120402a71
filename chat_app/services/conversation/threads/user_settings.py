"""A user's settings (theme, Enter to send, default assistant, density): read on every page,
saved from the settings dialog, checked so a bad value is refused with the reason and
nothing is stored."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from chat_app.db import repo
from chat_app.db.models import UserSettings
from chat_app.db.models.types import utcnow
from chat_app.db.models.user_settings import DENSITIES, THEMES
from chat_app.errors import Refused
from chat_app.services.runtime.backend import Backend

__all__ = ["SettingsRefused", "SettingsView", "read_settings", "save_settings"]


class SettingsRefused(Refused):
    """Why the settings were not saved, in words for the user."""

    default_code = "settings_refused"


class SettingsView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    theme: str = "system"
    enter_sends: bool = True
    default_assistant_id: str = ""  # empty: the first assistant
    density: str = "comfortable"


def read_settings(app: Backend, owner: str) -> SettingsView:
    """The owner's settings, the defaults until they save any."""
    with app.read() as db:
        stored = db.get(UserSettings, owner)
    if stored is None:
        return SettingsView()
    return SettingsView(
        theme=stored.theme,
        enter_sends=stored.enter_sends,
        default_assistant_id=stored.default_assistant_id or "",
        density=stored.density,
    )


def save_settings(app: Backend, owner: str, form: dict) -> SettingsView:
    """Store the settings dialog's ``form`` for ``owner``; raises :class:`SettingsRefused`."""
    theme = str(form.get("theme") or "system")
    density = str(form.get("density") or "comfortable")
    enter = str(form.get("enter_sends") or "on")
    assistant_id = str(form.get("default_assistant_id") or "")
    if theme not in THEMES:
        raise SettingsRefused(
            f"The theme is one of {', '.join(THEMES)}, not {theme!r}.",
            field="theme",
            code="unknown_theme",
        )
    if density not in DENSITIES:
        raise SettingsRefused(
            f"The density is one of {', '.join(DENSITIES)}, not {density!r}.",
            field="density",
            code="unknown_density",
        )
    if enter not in ("on", "off"):
        raise SettingsRefused(
            f"Enter to send is on or off, not {enter!r}.", field="enter_sends", code="not_on_or_off"
        )
    with app.write() as db:
        if assistant_id and repo.get_assistant(session=db, assistant_id=assistant_id) is None:
            raise SettingsRefused(
                "That assistant no longer exists; choose another.",
                field="default_assistant_id",
                code="assistant_gone",
            )
        stored = db.get(UserSettings, owner) or UserSettings(owner=owner)
        stored.theme, stored.density, stored.enter_sends = theme, density, enter == "on"
        stored.default_assistant_id = assistant_id or None
        stored.updated_at = utcnow()
        db.add(stored)
        db.commit()
    return read_settings(app, owner)
