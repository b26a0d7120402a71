"""An imported chat "at its agent's compactions": at each compaction the original agent made,
the summary it wrote beside the handoff Baton writes for the same cut, with their sizes and
probe coverage (:func:`agent_core.cuts_at_agent_compactions`; facts-only, no model call, the
same every time, so nothing is stored: it is computed from the kept file when asked)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from agent_core import parse_transcript
from agent_core.replay import AgentCut, cuts_at_agent_compactions
from chat_app.services.conversation.threads.chats import owned_thread
from chat_app.services.conversation.threads.importing import AGENT_NAMES, imported_record
from chat_app.services.presentation.counts import counted
from chat_app.services.runtime.backend import Backend

__all__ = ["AgentCutView", "agent_cut_views"]

_DEFAULT_MODEL = "gpt-4o"


class AgentCutView(BaseModel):
    """One cut as the page shows it."""

    model_config = ConfigDict(extra="forbid")

    number: int
    title: str
    agent_heading: str
    agent_figures: str
    agent_summary: str
    baton_figures: str
    baton_handoff: str


def agent_cut_views(app: Backend, owner: str, thread_id: str) -> list[AgentCutView]:
    """The cuts of ``owner``'s imported chat ``thread_id`` (none when it is not one, or its
    agent made no compaction)."""
    record = imported_record(app, thread_id)
    if record is None or not record.compactions or owned_thread(app, owner, thread_id) is None:
        return []
    transcript = parse_transcript(record.source, record.filename)
    agent = AGENT_NAMES.get(record.format, record.format)
    cuts = cuts_at_agent_compactions(transcript, model=record.model or _DEFAULT_MODEL)
    return [_view(cut, agent) for cut in cuts]


def _figures(tokens: int, scores: list[str]) -> str:
    return f"{tokens:,} tokens · " + ", ".join(scores)


def _view(cut: AgentCut, agent: str) -> AgentCutView:
    at = f" at {cut.tokens_before:,} tokens" if cut.tokens_before else ""
    total = cut.messages_before + cut.kept_whole
    kept = (
        f", keeping the last {cut.kept_whole:,} whole: both texts cover the first "
        f"{cut.messages_before:,}"
        if cut.kept_whole
        else ""
    )
    return AgentCutView(
        number=cut.number,
        title=f"Cut {cut.number}: {agent} compacted after {counted(total, 'message')}{at}{kept}",
        agent_heading=f"{agent}'s summary",
        agent_figures=_figures(cut.agent_tokens, [str(p) for p in cut.agent_probes]),
        agent_summary=cut.agent_summary,
        baton_figures=_figures(cut.baton_tokens, [str(p) for p in cut.baton_probes]),
        baton_handoff=cut.baton_handoff,
    )
