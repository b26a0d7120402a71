"""State of the MCP servers panel on `/admin`, for the assistant selected there.

It holds no credential of its own: every handler takes the grant from :class:`AdminState`.
Secrets go from the submitted form straight to the service and are never kept here.
"""

from __future__ import annotations

import dataclasses

import reflex as rx

from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.admin import mcp_admin
from chat_app.states.admin_state import AdminState

__all__ = ["McpAdminState", "McpServerRow"]


@dataclasses.dataclass
class McpServerRow:
    name: str = ""
    transport: str = ""
    where: str = ""
    secrets: str = ""


class McpAdminState(rx.State):
    servers: list[McpServerRow] = []
    error: str = ""
    notice: str = ""

    async def _admin(self) -> AdminState:
        return await self.get_state(AdminState)

    def _show(self, views: list[mcp_admin.McpServerView]) -> None:
        self.servers = [
            McpServerRow(
                name=v.name,
                transport=v.transport,
                where=v.where,
                secrets=", ".join(v.secret_names) + " (set, hidden)" if v.secret_names else "",
            )
            for v in views
        ]

    async def _run(self, action) -> None:  # type: ignore[no-untyped-def]
        admin = await self._admin()
        try:
            await action(admin._grant, admin.selected_id)
            self._show(mcp_admin.list_mcp_servers(root(), admin._grant, admin.selected_id))
            self.error = ""
        except admin_service.AdminRefused as refused:
            admin.signed_in, admin._grant = False, ""
            admin.error = str(refused)
        except admin_service.SettingsRejected as rejected:
            self.error, self.notice = str(rejected), ""

    @rx.event
    async def load(self) -> None:
        self.notice = ""

        async def nothing(grant: str, assistant_id: str) -> None:
            return None

        await self._run(nothing)

    @rx.event
    async def add(self, form_data: dict) -> None:
        form = mcp_admin.McpServerForm(
            **{k: str(v) for k, v in form_data.items() if k in mcp_admin.McpServerForm.model_fields}
        )

        async def add(grant: str, assistant_id: str) -> None:
            view = mcp_admin.add_mcp_server(root(), grant, assistant_id, form)
            self.notice = (
                f"Server {view.name} added: its tools join this assistant's chats "
                "from their next turn."
            )

        await self._run(add)

    @rx.event
    async def remove(self, name: str) -> None:
        async def remove(grant: str, assistant_id: str) -> None:
            mcp_admin.remove_mcp_server(root(), grant, assistant_id, name)
            self.notice = f"Server {name} removed."

        await self._run(remove)

    @rx.event
    async def check(self, name: str) -> None:
        async def check(grant: str, assistant_id: str) -> None:
            self.notice = await mcp_admin.check_mcp_server(root(), grant, assistant_id, name)

        await self._run(check)
