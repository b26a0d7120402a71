"""The admin service: the credential gate, form validation and the settings history."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from agent_core import model_info
from chat_app.db.models import Assistant
from chat_app.root import root
from chat_app.services import admin
from chat_app.services.admin import forms
from chat_app.services.runtime import runtime
from chat_app.services.runtime.container import App
from chat_app.settings import Settings, read_settings
from tests.chat_app.apps import started_with

PASSWORD = "correct horse battery staple"
CLIENT = "203.0.113.7"


@pytest.fixture
def settings(db_url: str) -> Settings:
    """Admin enabled: the app is started with a password."""
    return Settings(db_url=db_url, admin_password=PASSWORD)


@pytest.fixture
def grant(app) -> str:
    return admin.login(app, PASSWORD, client=CLIENT)


def configured(app: App, **credentials: str) -> App:
    """``app`` with these provider keys and URLs among its settings (as read at start-up)."""
    return started_with(app, provider_credentials=credentials)


def form(**fields: str) -> admin.AssistantForm:
    return admin.AssistantForm(**{"name": "Writer", **fields})


def test_every_call_is_refused_when_admin_is_not_enabled(app) -> None:
    app = started_with(app, admin_password="")
    for password in ("", PASSWORD):
        with pytest.raises(admin.AdminRefused, match=admin.PASSWORD_ENV):
            admin.login(app, password, client=CLIENT)
    with pytest.raises(admin.AdminRefused, match=admin.PASSWORD_ENV) as refused:
        admin.list_assistants(app, None)
    assert refused.value.code == "admin_disabled"


def test_wrong_password_or_forged_grant_is_refused(app) -> None:
    with pytest.raises(admin.WrongPassword, match="Wrong password") as wrong:
        admin.login(app, "wrong", client=CLIENT)
    assert (wrong.value.field, wrong.value.code) == ("password", "wrong_password")
    with pytest.raises(admin.AdminRefused) as refused:
        admin.create_assistant(app, "forged", form())
    assert refused.value.code == "not_signed_in"
    with pytest.raises(admin.AdminRefused):
        admin.list_assistants(app, None)


def test_grant_is_not_the_password_and_dies_with_it(grant: str, app) -> None:
    assert PASSWORD not in grant
    app = started_with(app, admin_password="rotated")
    with pytest.raises(admin.AdminRefused):
        admin.list_assistants(app, grant)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"compact_threshold": "90", "reset_threshold": "80"}, "must be below the reset"),
        ({"reset_threshold": "150"}, "from 1 to 100"),
        ({"reset_threshold": "0.8"}, "80 means 80%"),
        ({"reset_threshold": "lots"}, "must be a percentage"),
        ({"model": "claude"}, "provider:model"),
        ({"model": "foo:bar"}, "Unknown model provider 'foo': use one of anthropic, openai"),
        ({"context_strategy": "forget"}, "auto, compact or reset"),
        ({"window_override": "-5"}, "positive"),
        ({"name": "  "}, "Name cannot be empty"),
        ({"pinned_paths": "../secrets"}, "inside the workspace"),
        ({"history_tools": "maybe"}, "History tools must be on or off"),
        ({"mask_threshold": "60"}, "mask threshold \\(60%\\) must be below the compact"),
        ({"mask_threshold": "lots"}, "Mask threshold must be a percentage"),
        (
            {"warn_threshold": "85", "context_strategy": "reset"},
            "Warn threshold \\(85%\\) must be below",
        ),
        (
            {"warn_threshold": "50", "context_strategy": "compact"},
            "must be below the threshold that acts \\(50%\\)",
        ),
        ({"review_handoffs": "maybe"}, "Review handoffs must be on or off"),
    ],
)
def test_invalid_settings_are_rejected_with_a_reason(
    grant: str, fields: dict, message: str, app
) -> None:
    with pytest.raises(admin.SettingsRejected, match=message):
        admin.create_assistant(app, grant, form(**fields))


def test_auto_shows_what_it_resolves_to(grant: str, app) -> None:
    created = admin.create_assistant(app, grant, form(model="simulator", context_strategy="auto"))
    pinned = admin.create_assistant(app, grant, form(model="simulator", context_strategy="compact"))
    assert created.effective_strategy in ("compact", "reset")
    assert pinned.effective_strategy == "compact"


def test_changes_are_recorded_with_previous_values(grant: str, app) -> None:
    created = admin.create_assistant(app, grant, form(reset_threshold="80", pinned_paths="PLAN.md"))
    admin.update_assistant(
        app, grant, created.id, form(reset_threshold="70%", pinned_paths="PLAN.md\ndocs/**")
    )

    changes = {c.field: (c.previous, c.new) for c in admin.history(app, grant, created.id)}

    assert changes == {
        "reset_threshold": (0.8, 0.7),
        "pinned_paths": (["PLAN.md"], ["PLAN.md", "docs/**"]),
    }
    assert admin.get_assistant(app, grant, created.id).reset_threshold == 0.7
    # Shown as the form takes them: thresholds in percent.
    shown = {
        c.field: (admin.change_text(c.field, c.previous), admin.change_text(c.field, c.new))
        for c in admin.history(app, grant, created.id)
    }
    assert shown == {
        "reset_threshold": ("80%", "70%"),
        "pinned_paths": ('["PLAN.md"]', '["PLAN.md", "docs/**"]'),
    }


def test_history_tools_are_on_by_default_and_switch_off_per_assistant(grant: str, app) -> None:
    from chat_app.db.models import Assistant
    from chat_app.services.runtime.runtime import turn_setup

    created = admin.create_assistant(app, grant, form())
    assert created.history_tools is True
    switched = admin.update_assistant(app, grant, created.id, form(history_tools="off"))
    assert switched is not None and switched.history_tools is False
    changes = {c.field: (c.previous, c.new) for c in admin.history(app, grant, created.id)}
    assert changes == {"history_tools": (True, False)}

    def names(history_tools: bool) -> set[str]:
        setup, _ = turn_setup(app, "t", Assistant(name="a", history_tools=history_tools))
        return {tool.name for tool in setup.tools}

    assert {"search_history", "read_history"} <= names(True)
    assert not {"search_history", "read_history"} & names(False)


def test_network_for_commands_is_off_by_default_and_switches_on_per_assistant(
    grant: str, monkeypatch: pytest.MonkeyPatch, app
) -> None:
    from chat_app.db import repo

    monkeypatch.delenv("BATON_SANDBOX_NETWORK", raising=False)
    created = admin.create_assistant(app, grant, form())
    assert created.sandbox_network is False
    with pytest.raises(admin.SettingsRejected, match="Network for commands must be on or off"):
        admin.update_assistant(app, grant, created.id, form(sandbox_network="yes"))
    switched = admin.update_assistant(app, grant, created.id, form(sandbox_network="on"))
    assert switched is not None and switched.sandbox_network is True
    changes = {c.field: (c.previous, c.new) for c in admin.history(app, grant, created.id)}
    assert changes == {"sandbox_network": (False, True)}

    other = admin.create_assistant(app, grant, form(name="Other")).id
    with Session(root().engine) as db:
        stored = repo.get_assistant(session=db, assistant_id=created.id)
        default = repo.get_assistant(session=db, assistant_id=other)
        assert runtime.sandbox_for(app.settings, stored).network is True
        assert runtime.sandbox_for(app.settings, default).network is False
        monkeypatch.setenv("BATON_SANDBOX_NETWORK", "on")  # the server-wide switch
        assert runtime.sandbox_for(read_settings(), default).network is True


def test_the_mask_threshold_reaches_the_policy_and_empty_turns_it_off(grant: str, app) -> None:
    from chat_app.db.models import Assistant
    from chat_app.services.runtime.runtime import turn_setup

    created = admin.create_assistant(app, grant, form())
    assert created.mask_threshold == 0.35
    off = admin.update_assistant(app, grant, created.id, form(mask_threshold=""))
    assert off is not None and off.mask_threshold is None
    setup, _ = turn_setup(app, "t", Assistant(name="a", mask_threshold=0.2))
    assert setup.policy.mask_threshold == 0.2


def test_default_assistant_is_listed(grant: str, app) -> None:
    assert [a.name for a in admin.list_assistants(app, grant)] == ["Baton"]


def test_the_form_says_what_window_a_model_has_and_who_answers(grant: str, app) -> None:
    app = started_with(configured(app, OLLAMA_BASE_URL="http://127.0.0.1:11434"), sim_window=6000)
    simulator = admin.create_assistant(app, grant, form(model="simulator"))
    assert simulator.model_window == 32768
    assert simulator.model_note == "Offline simulator"

    # Without its key the simulator answers: its window, not the named model's, is the one
    # the chats run on, and the only one the page states.
    unconfigured = admin.create_assistant(app, grant, form(model="anthropic:claude-sonnet-4-6"))
    assert unconfigured.model_window == 1_000_000
    assert "ANTHROPIC_API_KEY" in unconfigured.model_note
    assert unconfigured.model_note.startswith("Offline simulator")
    assert "window" not in unconfigured.model_note
    assert unconfigured.window == 6000 and "1,000,000" not in unconfigured.window_note

    local = admin.create_assistant(app, grant, form(model="ollama:a-model-nobody-listed"))
    assert local.model_window == 8192
    assert local.model_note.startswith(
        "ollama:a-model-nobody-listed. Baton does not know this "
        "model's window; set the window override."
    )
    assert local.window == 8192


def test_the_form_says_whether_a_real_models_commands_can_run(
    grant: str, monkeypatch: pytest.MonkeyPatch, app
) -> None:
    app = configured(app, OLLAMA_BASE_URL="http://127.0.0.1:11434")
    monkeypatch.setattr(
        forms, "sandbox_unavailable_reason", lambda enabled: "bubblewrap is not installed"
    )
    blocked = admin.create_assistant(app, grant, form(model="ollama:llama3.1"))
    assert blocked.model_note.endswith("run_command is not offered: bubblewrap is not installed")
    monkeypatch.setattr(forms, "sandbox_unavailable_reason", lambda enabled: None)
    allowed = admin.create_assistant(app, grant, form(model="ollama:llama3.1", name="Sandboxed"))
    assert allowed.model_note.endswith("run_command runs commands for real in a sandbox")
    simulator = admin.create_assistant(app, grant, form(model="simulator", name="Offline"))
    assert "run_command" not in simulator.model_note


def _chat_window(app, assistant_id: str) -> int:
    """The window a chat on the assistant runs on, as the engine computes it."""
    with Session(root().engine) as db:
        assistant = db.get(Assistant, assistant_id)
        setup, _ = runtime.turn_setup(app, "t", assistant)
    return model_info(setup.model_name, window_override=setup.policy.window_override).context_window


def test_the_page_shows_the_window_chats_run_on_and_where_it_comes_from(grant: str, app) -> None:
    app = started_with(app, sim_window=6000)
    from_environment = admin.create_assistant(app, grant, form(model="simulator"))
    assert from_environment.window == 6000 == _chat_window(app, from_environment.id)
    assert "6,000-token window" in from_environment.window_note
    assert "BATON_SIM_WINDOW" in from_environment.window_note

    overridden = admin.create_assistant(app, grant, form(model="simulator", window_override="9000"))
    assert overridden.window == 9000 == _chat_window(app, overridden.id)
    assert "window override" in overridden.window_note

    app = started_with(app, sim_window=None)
    table = admin.get_assistant(app, grant, from_environment.id)
    assert table.window == 32768 == _chat_window(app, table.id)
    assert "model table" in table.window_note


def test_a_window_override_below_the_fixed_context_is_refused(grant: str, app) -> None:
    with pytest.raises(admin.SettingsRejected, match="cannot hold this assistant's fixed context"):
        admin.create_assistant(app, grant, form(window_override="100"))


def test_a_compaction_that_cannot_get_below_its_threshold_is_refused(grant: str, app) -> None:
    fields = {
        "context_strategy": "compact",
        "compact_threshold": "40",
        "keep_recent_tokens": "2000",
    }
    with pytest.raises(admin.SettingsRejected, match="Compaction cannot get below its threshold"):
        admin.create_assistant(app, grant, form(window_override="6000", **fields))
    app = started_with(app, sim_window=6000)
    with pytest.raises(admin.SettingsRejected, match="Compaction cannot get below its threshold"):
        admin.create_assistant(app, grant, form(**fields))
    # The same span on a window where it fits is accepted.
    assert (
        admin.create_assistant(app, grant, form(window_override="20000", **fields)).window == 20000
    )


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        # The review's case: compacting at 40% and keeping 5,000 of a 6,000-token window.
        (
            {"compact_threshold": "40", "keep_recent_tokens": "5000"},
            "keep_recent_tokens",
            "Keep-recent tokens \\(5,000\\) must be below what the mask threshold means: 35% of the "
            "6,000-token window is 2,100 tokens",
        ),
        (
            {
                "context_strategy": "compact",
                "compact_threshold": "40",
                "mask_threshold": "",
                "keep_recent_tokens": "3000",
            },
            "keep_recent_tokens",
            "Compaction cannot get below",
        ),
        (
            {"context_strategy": "reset", "mask_threshold": "", "keep_recent_tokens": "5000"},
            "keep_recent_tokens",
            "The chats run on a 6,000-token window, which cannot hold",
        ),
        (
            {
                "context_strategy": "reset",
                "reset_threshold": "20",
                "compact_threshold": "10",
                "mask_threshold": "",
                "keep_recent_tokens": "0",
            },
            "reset_threshold",
            "Resetting at 20% of the 6,000-token window means 1,200 tokens, but a new session starts "
            "with about",
        ),
        ({"reset_threshold": "100"}, "reset_threshold", "Reset threshold must be below 100%"),
        (
            {"system_prompt": "Follow the house rules. " * 1200},
            "system_prompt",
            "The chats run on a 6,000-token window, which cannot hold this assistant's fixed context",
        ),
    ],
)
def test_settings_that_would_break_the_assistant_are_refused_on_its_chats_window(
    grant: str, fields: dict, field: str, message: str, app
) -> None:
    app = started_with(app, sim_window=6000)
    with pytest.raises(admin.SettingsRejected, match=message) as refused:
        admin.create_assistant(app, grant, form(**fields))
    assert refused.value.field == field


def test_a_window_override_beyond_a_hosted_models_window_is_refused(grant: str, app) -> None:
    app = configured(app, OPENAI_API_KEY="sk-test-not-used")
    with pytest.raises(
        admin.SettingsRejected, match="larger than the model's own window \\(128,000\\)"
    ) as refused:
        admin.create_assistant(app, grant, form(model="openai:gpt-4o", window_override="200000"))
    assert refused.value.field == "window_override"
    assert (
        admin.create_assistant(
            app, grant, form(model="openai:gpt-4o", window_override="100000")
        ).window
        == 100_000
    )
    # Ollama's window is the one Baton sets (num_ctx): a larger one is its point.
    app = configured(app, OLLAMA_BASE_URL="http://127.0.0.1:11434")
    assert (
        admin.create_assistant(
            app, grant, form(model="ollama:llama3.1", name="Local", window_override="32000")
        ).window
        == 32_000
    )


def test_warn_threshold_and_review_reach_the_turn_and_the_history(grant: str, app) -> None:
    from chat_app.db.models import Assistant
    from chat_app.services.runtime.runtime import turn_setup

    created = admin.create_assistant(app, grant, form(context_strategy="reset"))
    assert created.warn_threshold is None and created.review_handoffs is False
    changed = admin.update_assistant(
        app,
        grant,
        created.id,
        form(context_strategy="reset", warn_threshold="60", review_handoffs="on"),
    )
    assert changed is not None and changed.warn_threshold == 0.6 and changed.review_handoffs
    changes = {c.field: (c.previous, c.new) for c in admin.history(app, grant, created.id)}
    assert changes == {"warn_threshold": (None, 0.6), "review_handoffs": (False, True)}
    setup, _ = turn_setup(app, "t", Assistant(name="a", warn_threshold=0.6, review_handoffs=True))
    assert setup.policy.warn_threshold == 0.6 and setup.review_handoffs is True


@pytest.mark.parametrize(
    ("fields", "field", "code"),
    [
        (
            {"compact_threshold": "90", "reset_threshold": "80"},
            "compact_threshold",
            "invalid_setting",
        ),
        ({"reset_threshold": "lots"}, "reset_threshold", "invalid_setting"),
        # The engine's policy check names the field itself; nothing is read from its message.
        ({"mask_threshold": "60"}, "mask_threshold", "invalid_policy"),
        ({"pinned_paths": "../secrets"}, "pinned_paths", "invalid_policy"),
        ({"model": "foo:bar"}, "model", "invalid_setting"),
        ({"name": ""}, "name", "invalid_setting"),
        ({"window_override": "100"}, "window_override", "not_runnable"),
        ({"keep_recent_tokens": "x"}, "keep_recent_tokens", "invalid_setting"),
    ],
)
def test_a_refusal_names_the_field_it_is_about(
    grant: str, fields: dict, field: str, code: str, app
) -> None:
    with pytest.raises(admin.SettingsRejected) as refused:
        admin.create_assistant(app, grant, form(**fields))
    assert (refused.value.field, refused.value.code) == (field, code)


def test_thresholds_are_typed_as_percentages_and_stored_as_fractions(grant: str, app) -> None:
    created = admin.create_assistant(
        app, grant, form(compact_threshold="45.5", reset_threshold="85%", mask_threshold="30")
    )
    assert (created.mask_threshold, created.compact_threshold, created.reset_threshold) == (
        0.3,
        0.455,
        0.85,
    )
    assert [admin.percent_text(v) for v in (0.3, 0.455, 0.85)] == ["30", "45.5", "85"]


def test_deleting_an_assistant_moves_its_chats_and_the_last_one_stays(grant: str, app) -> None:
    from chat_app.services.conversation.threads import chats as threads

    default = admin.list_assistants(app, grant)[0]
    writer = admin.create_assistant(app, grant, form())
    chat = threads.create_thread(app, "owner-1", "On the writer", assistant_id=writer.id)
    assert admin.chats_on(app, grant, writer.id) == 1
    with pytest.raises(admin.AssistantInUse, match="another assistant") as in_use:
        admin.delete_assistant(app, grant, writer.id, writer.id)
    assert (in_use.value.field, in_use.value.code) == ("move_to", "no_target")

    assert admin.delete_assistant(app, grant, writer.id, default.id) == 1

    assert [a.id for a in admin.list_assistants(app, grant)] == [default.id]
    assert threads.owned_thread(app, "owner-1", chat.id).assistant_id == default.id
    with pytest.raises(admin.AssistantInUse, match="last assistant") as in_use:
        admin.delete_assistant(app, grant, default.id, default.id)
    assert in_use.value.code == "last_assistant"
    with pytest.raises(admin.AdminRefused):
        admin.delete_assistant(app, "forged", default.id, default.id)
