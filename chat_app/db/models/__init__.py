"""Baton's tables, one family of SQLModel classes per entity.

Importing this package registers every table on ``SQLModel.metadata`` (Alembic reads it).
"""

from chat_app.db.models.assistant import (
    DEFAULT_PINNED_PATHS,
    Assistant,
    AssistantBase,
    AssistantChange,
    AssistantCreate,
    AssistantPublic,
    AssistantUpdate,
    ContextStrategy,
)
from chat_app.db.models.feedback import ReplyFeedback
from chat_app.db.models.files import PendingMessage, PendingMessagePublic, ThreadFile
from chat_app.db.models.imported import ImportedTranscript, TranscriptReplay
from chat_app.db.models.lease import TurnLease
from chat_app.db.models.mcp_server import AssistantMcpServer
from chat_app.db.models.message import ContextEditRow, Message, MessageBase, MessagePublic
from chat_app.db.models.session import (
    ChatSession,
    ChatSessionBase,
    ChatSessionPublic,
    SessionIndexEntry,
)
from chat_app.db.models.share import ShareLink, ShareLinkBase, ShareLinkPublic
from chat_app.db.models.sign_in import AdminSignInLink, SignInFailureCount
from chat_app.db.models.thread import Thread, ThreadBase, ThreadCreate, ThreadPublic, ThreadUpdate
from chat_app.db.models.types import UTCDateTime, new_id, utcnow
from chat_app.db.models.user_settings import UserSettings

__all__ = [
    "AdminSignInLink",
    "DEFAULT_PINNED_PATHS",
    "Assistant",
    "AssistantBase",
    "AssistantChange",
    "AssistantCreate",
    "AssistantMcpServer",
    "AssistantPublic",
    "AssistantUpdate",
    "ChatSession",
    "ChatSessionBase",
    "ChatSessionPublic",
    "ContextEditRow",
    "ContextStrategy",
    "ImportedTranscript",
    "Message",
    "MessageBase",
    "MessagePublic",
    "PendingMessage",
    "PendingMessagePublic",
    "ReplyFeedback",
    "SessionIndexEntry",
    "ShareLink",
    "ShareLinkBase",
    "ShareLinkPublic",
    "SignInFailureCount",
    "Thread",
    "ThreadBase",
    "ThreadCreate",
    "ThreadFile",
    "UserSettings",
    "ThreadPublic",
    "ThreadUpdate",
    "TranscriptReplay",
    "TurnLease",
    "UTCDateTime",
    "new_id",
    "utcnow",
]
