"""State for `/admin`. The password arrives once in a submitted form and is never stored;
what is kept is the service's grant, in a backend-only var the browser never receives.
Every handler passes the grant to the service, which refuses calls without a valid one."""

from __future__ import annotations

import dataclasses

import reflex as rx

from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.admin import sign_in_link
from chat_app.services.conversation import threads as thread_service

__all__ = ["AdminState", "AssistantRow", "ChangeRow"]


@dataclasses.dataclass
class AssistantRow:
    id: str = ""
    name: str = ""
    model: str = ""
    strategy: str = ""


@dataclasses.dataclass
class ChangeRow:
    label: str = ""


class AdminState(rx.State):
    enabled: bool = False
    signed_in: bool = False
    error: str = ""
    notice: str = ""
    assistants: list[AssistantRow] = []
    selected_id: str = ""
    form: dict[str, str] = {}
    effective_strategy: str = ""
    model_note: str = ""
    window_note: str = ""
    changes: list[ChangeRow] = []
    # How the replies of the selected assistant's chats were rated, and the newest notes.
    feedback_line: str = ""
    feedback_notes: list[str] = []
    # A refusal about one field, shown under that field: {field name: message}.
    field_errors: dict[str, str] = {}
    _grant: str = ""

    def _load(self) -> None:
        views = admin_service.list_assistants(root(), self._grant)
        self.assistants = [
            AssistantRow(
                id=v.id,
                name=v.name,
                model=v.model,
                strategy=f"{v.context_strategy} → {v.effective_strategy}",
            )
            for v in views
        ]
        if not self.selected_id and views:
            self.selected_id = views[0].id
        self._select(self.selected_id)

    def _select(self, assistant_id: str) -> None:
        view = (
            admin_service.get_assistant(root(), self._grant, assistant_id) if assistant_id else None
        )
        if view is None:
            self.selected_id, self.form, self.changes = "", {}, []
            self.feedback_line, self.feedback_notes = "", []
            return
        rated = thread_service.assistant_feedback(root(), view.id)
        self.feedback_line = (
            f"👍 {rated.up:,} · 👎 {rated.down:,}" if rated.up or rated.down else "No ratings yet."
        )
        self.feedback_notes = rated.notes
        self.selected_id = view.id
        self.effective_strategy = view.effective_strategy
        self.model_note = view.model_note
        self.window_note = view.window_note
        self.form = {
            "name": view.name,
            "model": view.model,
            "system_prompt": view.system_prompt,
            "context_strategy": view.context_strategy,
            # Percentages on the form, fractions in the database.
            "compact_threshold": admin_service.percent_text(view.compact_threshold),
            "mask_threshold": ""
            if view.mask_threshold is None
            else admin_service.percent_text(view.mask_threshold),
            "reset_threshold": admin_service.percent_text(view.reset_threshold),
            "keep_recent_tokens": str(view.keep_recent_tokens),
            "window_override": "" if view.window_override is None else str(view.window_override),
            "pinned_paths": "\n".join(view.pinned_paths),
            "history_tools": "on" if view.history_tools else "off",
            "warn_threshold": ""
            if view.warn_threshold is None
            else admin_service.percent_text(view.warn_threshold),
            "review_handoffs": "on" if view.review_handoffs else "off",
            "sandbox_network": "on" if view.sandbox_network else "off",
        }
        self.changes = [
            ChangeRow(
                label=f"{c.changed_at:%Y-%m-%d %H:%M:%S} · {c.field}: "
                f"{admin_service.change_text(c.field, c.previous)} → "
                f"{admin_service.change_text(c.field, c.new)}"
            )
            for c in admin_service.history(root(), self._grant, view.id)
        ]

    def _guarded(self, action) -> None:  # type: ignore[no-untyped-def]
        self.field_errors = {}
        try:
            action()
            self.error = ""
        except admin_service.AdminRefused as refused:
            self.signed_in, self._grant = False, ""
            self.error = str(refused)
        except admin_service.SettingsRejected as rejected:
            if rejected.field:
                self.field_errors, self.error = {rejected.field: str(rejected)}, ""
            else:
                self.error = str(rejected)

    @rx.event
    def on_load(self):
        self.enabled = admin_service.admin_enabled(root())
        self.notice = ""
        token = self.router.url.query_parameters.get(sign_in_link.LINK_PARAMETER, "")
        if token:
            # A one-time link printed on the server: it signs in whatever the throttle says,
            # then leaves the address bar (it is used up either way).
            try:
                self._grant = sign_in_link.sign_in_with_link(root(), token)
                self.signed_in, self.error = True, ""
            except admin_service.AdminRefused as refused:
                self.error = str(refused)
            return rx.redirect("/admin", replace=True)
        if self.signed_in:
            self._guarded(self._load)
        return None

    @rx.event
    def login(self, form_data: dict) -> None:
        try:
            # The address, not the cookie: a guesser that drops its cookie keeps its address.
            grant = admin_service.login(
                root(), str(form_data.get("password", "")), client=self.router.session.client_ip
            )
        except admin_service.AdminRefused as refused:
            # Wrong password, too many attempts (try again in N s / N min), or disabled.
            self.error = str(refused)
            return
        self._grant, self.signed_in, self.error = grant, True, ""
        self._guarded(self._load)

    @rx.event
    def logout(self) -> None:
        self._grant, self.signed_in = "", False
        self.assistants, self.form, self.changes, self.selected_id = [], {}, [], ""

    @rx.event
    def select(self, assistant_id: str) -> None:
        self.notice = ""
        self._guarded(lambda: self._select(assistant_id))

    @rx.event
    def create(self) -> None:
        def action() -> None:
            view = admin_service.create_assistant(
                root(),
                self._grant,
                admin_service.AssistantForm(name=f"Assistant {len(self.assistants) + 1}"),
            )
            self.selected_id = view.id
            self._load()
            self.notice = "Assistant created."

        self._guarded(action)

    @rx.event
    def save(self, form_data: dict) -> None:
        def action() -> None:
            fields = {
                k: str(v)
                for k, v in form_data.items()
                if k in admin_service.AssistantForm.model_fields
            }
            view = admin_service.update_assistant(
                root(), self._grant, self.selected_id, admin_service.AssistantForm(**fields)
            )
            if view is None:
                self.error = "That assistant no longer exists."
                return
            self._load()
            self.notice = "Saved. Threads on this assistant use it from their next turn."

        self.notice = ""
        self._guarded(action)
