"""The Baton Reflex app: routes, styles and the start-up schema migration."""

import os

import reflex as rx

from agent_core.redaction import install_log_redaction
from agent_core.validation import MAX_MESSAGE_BYTES
from chat_app.asgi import MIDDLEWARE_STACK
from chat_app.pages import admin as admin_page_module
from chat_app.pages import share as share_page_module
from chat_app.pages.index import index_page
from chat_app.pages.thread import thread_page
from chat_app.states.admin_state import AdminState
from chat_app.states.chat import ChatState
from chat_app.states.chat_assistant import ChatAssistantState
from chat_app.states.commands_notice import CommandsNoticeState
from chat_app.states.failure_toast import backend_exception_handler
from chat_app.states.feedback_state import FeedbackState
from chat_app.states.fork_state import ForkState
from chat_app.states.import_state import ReplayState
from chat_app.states.left_tabs import evict_left_tabs
from chat_app.states.message_search_state import MessageSearchState
from chat_app.states.new_chat import NewChatState
from chat_app.states.reset_control import ResetControlState
from chat_app.states.settings_state import SettingsState
from chat_app.states.share_state import SharedThreadState
from chat_app.states.thread_list import ThreadListState
from chat_app.upstream import purge_disk_states_less_often, ride_out_redis_cuts

# Before anything logs a provider URL (httpx, uvicorn, Reflex): keys never reach a log.
install_log_redaction()

# The socket must carry any message the service would refuse, so the refusal (which keeps the
# text) is what the user sees, not a dropped connection: a composer event holds the text
# JSON-escaped (up to 6 bytes per byte for control characters). Reflex's default is 1 MB.
os.environ.setdefault("REFLEX_SOCKET_MAX_HTTP_BUFFER_SIZE", str(16 * MAX_MESSAGE_BYTES))


def _build_app() -> None:
    """The composition root: the settings read once, the database brought to the newest
    schema, the store, runner and tool loader built (chat_app.root), before the first request
    is served; every state reaches this one app."""
    from chat_app.root import install
    from chat_app.services.runtime.container import build_app
    from chat_app.settings import read_settings

    install(build_app(read_settings()))


app = rx.App(
    stylesheets=["/baton.css", "/baton-layout.css", "/baton-reset-control.css"],
    head_components=[
        rx.el.link(rel="icon", href="/favicon.svg", type="image/svg+xml"),
        # First: a chat opened by its URL fetches its page's modules at once (the file says why).
        rx.el.script(src="/baton-preload.js"),
        rx.el.script(src="/baton-outbox.js"),
        rx.el.script(src="/baton-drafts.js"),  # after the outbox, whose refusals it follows
        rx.el.script(src="/baton-layout.js"),
        rx.el.script(src="/baton-keys.js"),
        rx.el.script(src="/baton-reader.js"),
        rx.el.script(src="/baton-chat.js"),
    ],
    # Origin checks, the signed identity cookie, state tokens bound to it, the page policy.
    api_transformer=MIDDLEWARE_STACK,
    # Top right, below the chat's header (baton-layout.css): at the bottom they covered the
    # newest rows, which are what a toast announces (a new session's divider); at the very
    # top the title and the context meter.
    toaster=rx.toast.provider(position="top-right", close_button=True),
    # A failed event says why in plain words (the database is full, read-only, gone...).
    backend_exception_handler=backend_exception_handler,
)


def _load_tokenizers() -> None:
    """Before the first request: the assistants' tokenizers (chat_app.services.runtime.runtime)."""
    from chat_app.root import root
    from chat_app.services.runtime.runtime import load_tokenizers

    load_tokenizers(root())


async def _start_lane() -> None:
    """Turn starts get threads of their own (chat_app.services.runtime.start_lane, unless
    ``BATON_START_LANE=off``): a new message's first words do not wait behind every other
    chat's steps."""
    import asyncio

    from chat_app.services.runtime.start_lane import install_start_lane

    install_start_lane(asyncio.get_running_loop())


async def _tune_interpreter() -> None:
    """Fewer and shorter collector pauses, and the GIL handed back sooner, in the worker
    (chat_app.serving)."""
    from chat_app.serving import tune_garbage_collector, tune_thread_switching

    tune_garbage_collector()
    tune_thread_switching()


async def _hand_turns_to_a_process() -> None:
    """With one backend worker (the default), turns run in a process of their own beside it
    (chat_app.services.runtime.turn_process): the pages keep one core, the turns get the other."""
    import asyncio

    from chat_app.db.settings import turn_process_enabled

    if not turn_process_enabled():
        return
    from chat_app.root import root
    from chat_app.services.conversation.runs import resume_after_turn_process_loss

    # A child that dies mid-turn: its cut turns are answered again, as after a crash.
    from chat_app.services.runtime.turn_recycling import Recycling

    app = root()
    recycling = Recycling(
        growth=int(app.settings.turn_process_recycle_mb * 2**20),
        idle=app.settings.turn_process_idle,
    )
    app.turn_process.start(
        lambda tag, threads: resume_after_turn_process_loss(app, tag, threads), recycling
    )
    try:
        await asyncio.Event().wait()  # until the server shuts down
    finally:
        app.turn_process.stop()


async def _stop_lease_waits_at_shutdown() -> None:
    """At shutdown, turns waiting for another worker's lease on their chat give up at once
    (chat_app.db.lease.stop_waiting): the worker's exit waits for them, and a stopping
    worker's lease is freed only when it expires. Their messages stay queued for the next
    start."""
    import asyncio

    from chat_app.db.lease import stop_waiting

    try:
        await asyncio.Event().wait()  # until the server shuts down
    finally:
        stop_waiting()


async def _resume_queued_messages() -> None:
    """Answer once more the messages whose turns a crash cut (chat_app.services.conversation.runs.cut_turns),
    then the messages that were queued but not delivered when the backend last stopped."""
    from chat_app.root import root
    from chat_app.services.conversation.runs import resume_all_queued, resume_cut_turns

    await resume_all_queued(root(), skip=await resume_cut_turns(root()))


app.register_lifespan_task(_build_app)
app.register_lifespan_task(_load_tokenizers)
app.register_lifespan_task(_start_lane)
app.register_lifespan_task(_tune_interpreter)
app.register_lifespan_task(_hand_turns_to_a_process)
app.register_lifespan_task(_stop_lease_waits_at_shutdown)
app.register_lifespan_task(_resume_queued_messages)
app.register_lifespan_task(evict_left_tabs)
# The tab is named after the chat, and follows a rename or the naming by a first message.
app.add_page(
    thread_page,
    route="/t/[thread_id]",
    title=rx.cond(ChatState.title != "", ChatState.title + " · Baton", "Baton"),
    on_load=[
        ChatState.on_load,
        CommandsNoticeState.load,
        ThreadListState.on_load,
        ChatAssistantState.load,
        ResetControlState.on_load,
        ForkState.load,
        FeedbackState.load,
        SettingsState.load,
        MessageSearchState.jump_from_url,
        ReplayState.load,
    ],
)
app.add_page(
    index_page,
    route="/",
    title="New chat · Baton",
    on_load=[ThreadListState.on_load, SettingsState.load, NewChatState.on_load],
)
app.add_page(
    share_page_module.share_page,
    route="/share/[share_token]",
    title="Baton (shared)",
    on_load=SharedThreadState.on_load,
    meta=share_page_module.NOINDEX,
)
app.add_page(
    admin_page_module.admin_page,
    route="/admin",
    title="Baton admin",
    on_load=AdminState.on_load,
    meta=admin_page_module.NOINDEX,
)
# With Redis and several workers, a tab's events are served from its worker's copy of its
# state while Redis is cut, instead of all failing (chat_app/upstream.py).
ride_out_redis_cuts(app)
# With one worker, the states on disk are looked through for expired tabs once a minute,
# not after every 2 s write pass (chat_app/upstream/reflex.py).
purge_disk_states_less_often(app)
