"""The admin page's use cases: assistants and their settings, MCP servers, what a model can do.

Its face: sign-in (:mod:`.auth`), the settings form (:mod:`.forms`) and the assistants
(:mod:`.assistants`), importable from here.
"""

from chat_app.services.admin.assistants import (
    AssistantInUse,
    AssistantView,
    ChangeView,
    chats_on,
    create_assistant,
    delete_assistant,
    get_assistant,
    history,
    list_assistants,
    update_assistant,
)
from chat_app.services.admin.auth import (
    PASSWORD_ENV,
    AdminRefused,
    TooManyAttempts,
    WrongPassword,
    admin_enabled,
    current_grant,
    login,
    require_grant,
)
from chat_app.services.admin.forms import (
    AssistantForm,
    SettingsRejected,
    change_text,
    percent_text,
    validate_form,
)

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
