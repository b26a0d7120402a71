"""What a chat's assistant can do on this host, said in the chat itself.

The admin page already names these limits (:func:`chat_app.services.admin.forms.commands_note`);
a person chatting should not have to visit it to learn why the agent never runs a command.
"""

from __future__ import annotations

from agent_core import ConfigurationError
from agent_core.sandbox import sandbox_unavailable_reason
from chat_app.db import repo
from chat_app.services.runtime import runtime
from chat_app.services.runtime.backend import Backend

__all__ = ["commands_note"]


def commands_note(app: Backend, owner: str | None, thread_id: str) -> str:
    """One sentence when ``run_command`` is not offered in this chat, else an empty string.

    A real model gets the sandboxed ``run_command``, or none when the host cannot sandbox
    (:func:`agent_core.tools._builtin.command_mode`); the offline simulator always has its scripted
    one. An assistant that cannot resolve says nothing here: the chat's problem banner
    already explains it.
    """
    with app.read() as db:
        thread = repo.get_thread(session=db, thread_id=thread_id, owner=owner)
        if thread is None:
            return ""
        assistant = repo.get_assistant(session=db, assistant_id=thread.assistant_id)
        if assistant is None:
            return ""
        try:
            resolved = runtime.model_for(app, assistant)
        except ConfigurationError:
            return ""
    if resolved.is_simulator:
        return ""
    reason = sandbox_unavailable_reason(app.settings.sandbox_enabled)
    if reason is None:
        return ""
    return (
        f"This assistant cannot run commands here: {reason}. It can still read and write "
        "the chat's files."
    )
