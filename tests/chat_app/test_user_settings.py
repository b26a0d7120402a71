"""A user's settings through the service the settings dialog uses."""

from __future__ import annotations

import pytest

from chat_app.services.conversation.threads import chats as threads
from chat_app.services.conversation.threads import user_settings
from tests.chat_app.test_sharing_service import OWNER, STRANGER, database  # noqa: F401


def test_defaults_until_saved_then_the_saved_ones_for_that_user_only(app) -> None:
    assert user_settings.read_settings(app, OWNER) == user_settings.SettingsView()
    assistant = threads.list_assistant_choices(app)[0].id
    form = {
        "theme": "dark",
        "enter_sends": "off",
        "density": "compact",
        "default_assistant_id": assistant,
    }
    saved = user_settings.save_settings(app, OWNER, form)
    assert saved == user_settings.SettingsView(
        theme="dark", enter_sends=False, default_assistant_id=assistant, density="compact"
    )
    assert user_settings.read_settings(app, OWNER) == saved  # any device of the user
    assert user_settings.read_settings(app, STRANGER) == user_settings.SettingsView()


@pytest.mark.parametrize(
    ("form", "reason"),
    [
        ({"theme": "purple"}, "theme is one of"),
        ({"density": "tiny"}, "density is one of"),
        ({"enter_sends": "maybe"}, "on or off"),
        ({"default_assistant_id": "gone"}, "no longer exists"),
    ],
)
def test_a_bad_value_is_refused_with_the_reason_and_nothing_stored(app, form, reason) -> None:
    with pytest.raises(user_settings.SettingsRefused, match=reason) as refused:
        user_settings.save_settings(app, OWNER, form)
    assert refused.value.field == next(iter(form))  # the dialog's field it is about
    assert user_settings.read_settings(app, OWNER) == user_settings.SettingsView()
