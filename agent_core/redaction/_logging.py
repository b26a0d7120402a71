"""Every log record redacted as it is created, whoever logs it; users' text out of logs."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from ._secrets import known_secrets
from ._text import redact_text, secret_spans

__all__ = [
    "hide_user_content",
    "install_log_redaction",
]

# What users typed reaches logs inside exception texts: a SQL statement's parameters (an
# engine that does not hide them) and pydantic's quoted input. Neither is a secret to look
# up, so both are cut by their shape. The parameters run to SQLAlchemy's "(Background on
# this error" line, or to the end of the text.
_SQL_PARAMETERS = re.compile(r"\[parameters: .*?(?=\n\(Background on this error|\Z)", re.S)
_PYDANTIC_INPUT = re.compile(r"input_value=.*?, input_type=", re.S)


def hide_user_content(text: str) -> str:
    """``text`` without the parts that carry what a user typed: SQL statement parameters
    and pydantic's quoted input (pure)."""
    if "[parameters: " in text:
        text = _SQL_PARAMETERS.sub("[parameters: hidden]", text)
    if "input_value=" in text:
        text = _PYDANTIC_INPUT.sub("input_value=[hidden], input_type=", text)
    return text


def _mentions(text: str, secrets: list[str]) -> bool:
    return (
        "://" in text
        or "[parameters: " in text
        or "input_value=" in text
        or bool(secret_spans(text, secrets))
    )


def _clean(text: str, secrets: list[str]) -> str:
    return hide_user_content(redact_text(text, secrets))


def _redact_record(record: logging.LogRecord) -> None:
    secrets = known_secrets()
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a malformed record; logging reports it when emitted
        message = ""
    if _mentions(message, secrets):
        clean = _clean(message, secrets)
        if clean != message:
            record.msg, record.args = clean, ()
    if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
        trace = logging.Formatter().formatException(record.exc_info)
        clean = _clean(trace, secrets) if _mentions(trace, secrets) else trace
        if clean != trace:
            # Formatters print exc_text as it is; the exception itself must not reach a
            # handler that renders it again (rich tracebacks, error trackers).
            record.exc_text, record.exc_info = clean, None
    if record.stack_info and _mentions(record.stack_info, secrets):
        record.stack_info = _clean(record.stack_info, secrets)


class _RedactingRecordFactory:
    """The previous log record factory, with every record redacted as it is created."""

    def __init__(self, inner: Callable[..., logging.LogRecord]) -> None:
        self.inner = inner

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.inner(*args, **kwargs)
        _redact_record(record)
        return record


def install_log_redaction() -> None:
    """Redact every log record created from now on in this process, whoever logs it (httpx,
    uvicorn, Reflex, Baton): URLs lose their credentials, known secret values are replaced.

    Call once at process start, before servers and clients log; calling it again does nothing.
    """
    current = logging.getLogRecordFactory()
    if not isinstance(current, _RedactingRecordFactory):
        logging.setLogRecordFactory(_RedactingRecordFactory(current))
