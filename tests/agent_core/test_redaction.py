"""Credentials never reach a page or a log: URLs lose their userinfo and secret parameters,
known key values are replaced, and every log record is redacted as it is created."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from agent_core.redaction import (
    argv_secrets,
    forget_known_secrets,
    install_log_redaction,
    known_secrets,
    redact_argv,
    redact_text,
    redact_url,
    remember_secrets,
)

SECRET = "sk-secret123"


# redact_url -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"https://user:{SECRET}@host:8443/v1", "https://host:8443/v1"),
        (f"https://{SECRET}@host/v1", "https://host/v1"),
        (f"https://host/v1?api_key={SECRET}&x=1", "https://host/v1?api_key=[redacted]&x=1"),
        (
            f"https://u:{SECRET}@host/v1/chat?model=m&access_token={SECRET}",
            "https://host/v1/chat?model=m&access_token=[redacted]",
        ),
        (
            f"https://host/cb#access_token={SECRET}&state=1",
            "https://host/cb#access_token=[redacted]&state=1",
        ),
    ],
)
def test_a_url_is_shown_without_its_credentials(url: str, shown: str) -> None:
    assert redact_url(url) == shown


@pytest.mark.parametrize(
    "name",
    ["key", "API_KEY", "apiKey", "x-goog-api-key", "token", "Access_Token", "secret",
     "client_secret", "password", "pass", "sig", "X-Amz-Signature", "auth", "credentials", "code"],
)  # fmt: skip
def test_every_secret_looking_parameter_is_redacted(name: str) -> None:
    assert redact_url(f"https://host/v1?{name}={SECRET}&model=m") == (
        f"https://host/v1?{name}=[redacted]&model=m"
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/v1",
        "https://api.example.com/v1/chat/completions?model=gpt-4o&stream=true#part",
        "http://[::1]:11434",
        "sqlite:///baton.db",
    ],
)
def test_a_url_without_credentials_is_unchanged(url: str) -> None:
    assert redact_url(url) == url


# redact_text ----------------------------------------------------------------------------------
def test_every_url_in_a_text_is_redacted() -> None:
    text = (
        f"Client error '404 Not Found' for url 'https://user:{SECRET}@host/v1/chat/completions'"
        f" (retried via http://proxy:8080/?token={SECRET})"
    )
    assert redact_text(text) == (
        "Client error '404 Not Found' for url 'https://host/v1/chat/completions'"
        " (retried via http://proxy:8080/?token=[redacted])"
    )


def test_a_long_log_line_is_redacted_whole() -> None:
    # Every log line passes through redact_text; how its time grows with a long base64 blob
    # (linear, not quadratic) is measured by bench/redaction.py, not asserted here.
    text = "payload " + "A" * 100_000 + f" sent to https://user:{SECRET}@host/v1"
    assert redact_text(text) == "payload " + "A" * 100_000 + " sent to https://host/v1"


def test_known_secrets_are_replaced_wherever_they_appear() -> None:
    text = f"Incorrect API key provided: {SECRET}. Bearer {SECRET}xyz"
    assert redact_text(text, [SECRET, f"{SECRET}xyz", "short"]) == (
        "Incorrect API key provided: [redacted]. Bearer [redacted]"
    )


# known_secrets --------------------------------------------------------------------------------
def test_the_keys_and_the_credentials_in_base_urls_are_known_secrets() -> None:
    env = {
        "OPENAI_API_KEY": "sk-openai-key",
        "BATON_ADMIN_PASSWORD": "admin-password",
        "BATON_OPENAI_BASE_URL": "https://proxyuser:proxy%40pass@host/v1?api_key=query-key&x=1",
        "ANTHROPIC_BASE_URL": "https://host/v1?auth=abc",  # too short to replace in free text
        "HOME": "/home/someone",
    }
    assert set(known_secrets(env)) == {
        "sk-openai-key",
        "admin-password",
        "proxyuser",
        "proxy%40pass",
        "proxy@pass",
        "query-key",
    }


def test_the_process_knows_the_secrets_it_was_told_of_not_its_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The composition root hands over its settings' secrets; the engine reads no environment.
    forget_known_secrets()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unseen-key")
    assert known_secrets() == []
    told = {"OPENAI_API_KEY": "sk-first-key", "SOME_PROXY_URL": f"https://user:{SECRET}@proxy"}
    remember_secrets(known_secrets(told))
    assert set(known_secrets()) == {"sk-first-key", SECRET}
    forget_known_secrets()
    assert known_secrets() == []


# logging --------------------------------------------------------------------------------------
def test_an_httpx_request_line_is_logged_without_credentials(
    log_redaction: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="httpx")
    url = httpx.URL(f"https://user:{SECRET}@host/v1/chat/completions?api_key={SECRET}")
    logging.getLogger("httpx").info(
        'HTTP Request: %s %s "%s %d %s"', "POST", url, "HTTP/1.1", 200, "OK"
    )
    [record] = caplog.records
    assert record.getMessage() == (
        'HTTP Request: POST https://host/v1/chat/completions?api_key=[redacted] "HTTP/1.1 200 OK"'
    )
    assert SECRET not in caplog.text


def test_a_known_secret_in_log_arguments_is_replaced(
    log_redaction: None, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember_secrets([SECRET])
    caplog.set_level(logging.DEBUG)
    logging.getLogger("some.library").debug(
        "sending headers %s", {"Authorization": f"Bearer {SECRET}"}
    )
    [record] = caplog.records
    assert record.getMessage() == "sending headers {'Authorization': 'Bearer [redacted]'}"


def test_a_logged_traceback_holds_no_credentials(
    log_redaction: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    try:
        raise RuntimeError(f"cannot reach https://user:{SECRET}@host/v1")
    except RuntimeError:
        logging.getLogger("some.library").exception("request failed")
    assert "RuntimeError: cannot reach https://host/v1" in caplog.text
    assert SECRET not in caplog.text


def test_what_a_user_typed_is_not_logged_with_a_database_or_validation_error(
    log_redaction: None, caplog: pytest.LogCaptureFixture
) -> None:
    # An engine that does not hide its parameters, and pydantic, quote the user's text.
    from pydantic import BaseModel
    from sqlalchemy import create_engine, text

    caplog.set_level(logging.ERROR)
    typed = "my private note 4711"
    engine = create_engine("sqlite://")
    try:
        with engine.connect() as connection:
            connection.execute(text("INSERT INTO missing VALUES (:note)"), {"note": typed})
    except Exception:
        logging.getLogger("some.library").exception("insert failed")

    class Reply(BaseModel):
        tokens: int

    try:
        Reply(tokens=typed)
    except ValueError as exc:
        logging.getLogger("some.library").error("bad reply: %s", exc)
    assert "no such table: missing" in caplog.text and "[parameters: hidden]" in caplog.text
    assert "input_value=[hidden], input_type=str" in caplog.text
    assert typed not in caplog.text


def test_installing_twice_redacts_once(log_redaction: None) -> None:
    factory = logging.getLogRecordFactory()
    install_log_redaction()
    assert logging.getLogRecordFactory() is factory


# command lines --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (
            ["-y", "@modelcontextprotocol/server-github", "--token", "ghp_abcdefghijklmnop1234"],
            ["-y", "@modelcontextprotocol/server-github", "--token", "[redacted]"],
        ),
        (["--api-key=sk-ant-abc123def456"], ["--api-key=[redacted]"]),
        (
            ["GITHUB_TOKEN=abc123xyz", "node", "srv.js"],
            ["GITHUB_TOKEN=[redacted]", "node", "srv.js"],
        ),
        (
            ["--Client-Secret", "s3cr3t-value", "--verbose"],
            ["--Client-Secret", "[redacted]", "--verbose"],
        ),
        (
            ["--db", "https://user:pw-123456@db.example/x?token=t0k3n-abcdef"],
            ["--db", "https://db.example/x?token=[redacted]"],
        ),
        (["serve", "a3f9c2b7e1d04f5a8b6c9d2e3f4a5b6c"], ["serve", "[redacted]"]),  # a bare key
        (["serve", "AKIAIOSFODNN7EXAMPLE"], ["serve", "[redacted]"]),
        (["--password", "--verbose"], ["--password", "--verbose"]),  # no value follows
    ],
)
def test_a_command_line_is_shown_without_its_secrets(argv: list[str], shown: list[str]) -> None:
    assert redact_argv(argv) == shown


@pytest.mark.parametrize(
    "argv",
    [
        ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"],
        ["mcp-server-sqlite==0.6.2", "--db-path", "/data/baton-notes.db"],
        ["--author", "Ada", "--port", "8080"],
    ],
)
def test_an_ordinary_command_line_is_shown_as_it_is(argv: list[str]) -> None:
    assert redact_argv(argv) == argv and argv_secrets(argv) == []


BEARER = "tok3n-Bearer-9f8e7d"


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (
            ["--header", f"Authorization: Bearer {BEARER}", "--verbose"],
            ["--header", "Authorization: [redacted]", "--verbose"],
        ),
        (["-H", f"X-Custom: {BEARER}"], ["-H", "X-Custom: [redacted]"]),
        ([f"--header=Authorization: Bearer {BEARER}"], ["--header=[redacted]"]),
        ([f"Authorization: Bearer {BEARER}"], ["Authorization: [redacted]"]),
        (["--pw=hunter2-xyz", "serve"], ["--pw=[redacted]", "serve"]),
        (["-p", "hunter2-xyz", "--port", "8080"], ["-p", "[redacted]", "--port", "8080"]),
        (["--auth", "ada", "hunter2-xyz", "-v"], ["--auth", "[redacted]", "[redacted]", "-v"]),
        (
            ["--config", json.dumps({"db": "/data/x.db", "password": "hunter2-xyz"})],
            ["--config", json.dumps({"db": "/data/x.db", "password": "[redacted]"})],
        ),
        (
            [json.dumps({"headers": {"Authorization": f"Bearer {BEARER}"}, "port": 1})],
            [json.dumps({"headers": "[redacted]", "port": 1})],
        ),
        (
            [f"--config={json.dumps({'servers': [{'env': {'API_TOKEN': BEARER}}]})}"],
            [f"--config={json.dumps({'servers': [{'env': {'API_TOKEN': '[redacted]'}}]})}"],
        ),
        (
            [json.dumps(["serve", "ghp_abcdefghijklmnop1234"])],
            [json.dumps(["serve", "[redacted]"])],
        ),
    ],
)
def test_every_argument_after_a_secret_flag_and_secrets_in_json_are_hidden(
    argv: list[str], shown: list[str]
) -> None:
    assert redact_argv(argv) == shown
    hidden = " ".join(argv_secrets(argv))
    assert "hunter2-xyz" in hidden or BEARER in hidden or "ghp_" in hidden


def test_a_server_with_secrets_on_its_command_line_shows_none_of_them() -> None:
    from agent_core import McpServer

    server = McpServer(
        name="notes",
        transport="stdio",
        command="notes-server",
        args=(
            "--header",
            f"Authorization: Bearer {BEARER}",
            "--pw=hunter2-xyz",
            "-p",
            "s3cret-pass",
            json.dumps({"auth": {"token": "json-secret-77"}}),
        ),
    )
    where = server.where()
    for secret in (BEARER, "hunter2-xyz", "s3cret-pass", "json-secret-77"):
        assert secret not in where
        assert secret in server.secret_values()
    assert where.startswith("notes-server --header Authorization: [redacted]")


def test_the_secrets_of_a_command_line_are_listed_to_redact_elsewhere() -> None:
    argv = ["--token", "tok-123456", "--url", "https://u:pw-123456@h/x", "KEY=value-123"]
    assert sorted(argv_secrets(argv)) == ["pw-123456", "tok-123456", "value-123"]


# a secret however it is written ---------------------------------------------------------------
KEY = "sk-ant-api03-Zx9Qw7Lm2Np5Rt8V"


def _b64(data: str, *, urlsafe: bool = False) -> str:
    import base64

    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(data.encode()).decode()


@pytest.mark.parametrize(
    ("written", "why"),
    [
        (_b64(KEY), "base64"),
        (_b64(f"user:{KEY}"), "base64 at another alignment (HTTP Basic)"),
        (_b64(f'{{"k": "{KEY}"}}', urlsafe=True), "URL-safe base64, a third alignment"),
        (KEY.upper(), "upper-cased"),
        (KEY.lower(), "lower-cased"),
        (f"{KEY[:9]}\n{KEY[9:]}", "split across two lines"),
        (f"{KEY[:7]}\n    {KEY[7:15]}\n    {KEY[15:]}", "wrapped and indented"),
        ("\n".join(_b64(KEY)[i : i + 8] for i in range(0, len(_b64(KEY)), 8)), "base64, wrapped"),
    ],
)
def test_a_key_is_redacted_however_it_is_written(written: str, why: str) -> None:
    text = f"request failed: Authorization: Basic {written} (retrying)"
    shown = redact_text(text, [KEY])
    assert "[redacted]" in shown, why
    assert shown.startswith("request failed: Authorization: Basic ") and shown.endswith(
        " (retrying)"
    ), why
    for piece in (KEY, KEY.upper(), _b64(KEY)[2:-2], KEY[9:]):
        assert piece not in shown, why


ZWSP = "\u200b"


@pytest.mark.parametrize(
    ("written", "why"),
    [
        (KEY.encode().hex(), "hex"),
        (KEY.encode().hex().upper(), "upper-case hex"),
        (" ".join(f"{b:02x}" for b in KEY.encode()), "a hex dump, bytes apart"),
        ("".join(f"\\u{ord(c):04x}" for c in KEY), "\\u-escaped, as JSON may write it"),
        (KEY[:5] + "".join(f"\\u{ord(c):04X}" for c in KEY[5:12]) + KEY[12:], "partly escaped"),
        ("".join(f"\\x{b:02x}" for b in KEY.encode()), "\\x-escaped, as a bytes repr writes it"),
        (KEY[:8] + ZWSP + KEY[8:], "a zero-width space inside"),
        (ZWSP.join(KEY), "a zero-width space between every character"),
        (KEY[:4] + "\u2060" + KEY[4:10] + "\ufeff" + KEY[10:], "other invisible characters"),
    ],
)
def test_a_key_written_in_hex_escaped_or_with_invisible_characters_is_redacted(
    written: str, why: str
) -> None:
    text = f"request failed: key={written} (retrying)"
    shown = redact_text(text, [KEY])
    assert shown == "request failed: key=[redacted] (retrying)", why


def test_a_log_record_with_a_key_in_hex_or_escaped_is_redacted(
    log_redaction: None, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember_secrets([KEY])
    caplog.set_level(logging.INFO)
    log = logging.getLogger("some.client")
    log.info(
        "body %s",
        json.dumps({"key": KEY}).replace(KEY[3:9], "\\u0061\\u006e\\u0074\\u002d\\u0061\\u0070"),
    )
    log.info("dump %s", KEY.encode().hex())
    log.info("pasted %s", KEY[:6] + ZWSP + KEY[6:])
    assert caplog.text.count("[redacted]") == 3, caplog.text
    forget_known_secrets()


def test_ordinary_text_near_a_key_is_left_alone() -> None:
    text = "Basic auth for user ada, token count 1234, base64 aGVsbG8gd29ybGQ="
    assert redact_text(text, [KEY]) == text


def test_a_log_record_with_a_key_written_otherwise_is_redacted(
    log_redaction: None, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember_secrets([KEY])
    caplog.set_level(logging.INFO)
    log = logging.getLogger("some.client")
    log.info("headers %s", {"authorization": f"Basic {_b64('x:' + KEY)}"})
    log.info("KEY %s", KEY.upper())
    log.info("key was\n%s\n%s", KEY[:10], KEY[10:])
    assert caplog.text.count("[redacted]") == 3
    assert KEY not in caplog.text and KEY.upper() not in caplog.text
    assert KEY[10:] not in caplog.text and _b64("x:" + KEY)[4:-4] not in caplog.text
    forget_known_secrets()
