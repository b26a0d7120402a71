"""Credentials out of everything Baton shows or logs, and users' text out of its logs.

A provider URL may carry a key (``https://user:key@host/v1``, ``?api_key=…``), and the
libraries under Baton print URLs freely: httpx logs every request, exception texts quote the
request URL. Guarding each place a URL is built would miss the next library, so redaction is
applied where text leaves the process: :func:`redact_text` for messages a user sees, and
:func:`install_log_redaction` for every log record, whichever library creates it.

The modules here import only the standard library and one another, relatively: the MCP
server wrapper (``agent_core/tools/_mcp_stderr.py``) loads this package on its own, without
importing ``agent_core``.
"""

from ._argv import argv_secrets, redact_argv
from ._logging import hide_user_content, install_log_redaction
from ._secrets import (
    SECRET_ENV_VARS,
    forget_known_secrets,
    known_secrets,
    remember_secrets,
)
from ._text import redact_text, secret_spans
from ._urls import REDACTED, redact_url, url_secrets

__all__ = [
    "REDACTED",
    "SECRET_ENV_VARS",
    "argv_secrets",
    "forget_known_secrets",
    "hide_user_content",
    "install_log_redaction",
    "known_secrets",
    "redact_argv",
    "redact_text",
    "redact_url",
    "remember_secrets",
    "secret_spans",
    "url_secrets",
]
