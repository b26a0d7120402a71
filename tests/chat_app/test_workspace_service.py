"""Attaching files to a thread's workspace, listing it and downloading it as a zip."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from chat_app.root import root
from chat_app.services.conversation.threads import chats as threads
from chat_app.services.conversation.threads import workspace


@pytest.fixture(autouse=True)
def database(app) -> None:
    """Every test here runs on its own app (a fresh SQLite file)."""


@pytest.fixture
def thread_id(app) -> str:
    return threads.create_thread(app, "owner-1", "files").id


def test_attached_files_land_in_the_workspace_and_the_zip(thread_id: str, app) -> None:
    paths = workspace.attach_files(
        app, "owner-1", thread_id, [("a.py", b"print(1)\n"), ("notes.txt", "h\u00e9llo".encode())]
    )

    assert paths == ["a.py", "notes.txt"]
    assert workspace.attached_line(paths) == "Attached: a.py, notes.txt"
    assert root().store.read_file(thread_id, "notes.txt") == "h\u00e9llo"
    assert [(f.path, f.size) for f in workspace.list_files(app, "owner-1", thread_id)] == [
        ("a.py", 9),
        ("notes.txt", 6),
    ]
    archive = zipfile.ZipFile(io.BytesIO(workspace.workspace_zip(app, "owner-1", thread_id)))
    assert {name: archive.read(name) for name in archive.namelist()} == {
        "a.py": b"print(1)\n",
        "notes.txt": "h\u00e9llo".encode(),
    }


OK = ("ok.py", b"fine")


@pytest.mark.parametrize(
    ("files", "message", "code"),
    [
        (
            [OK, ("big.txt", b"x" * 1_000_001)],
            "big.txt is 1.0 MB; a file may be at most 1 MB",
            "file_too_large",
        ),
        (
            [OK, ("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00")],
            "logo.png is not a text file",
            "not_text",
        ),
        (
            [OK, ("latin.txt", "caf\u00e9".encode("latin-1"))],
            "latin.txt is not UTF-8 text",
            "not_text",
        ),
        (
            [(f"f{i}.txt", b"x") for i in range(6)],
            "6 files chosen; attach at most 5",
            "too_many_files",
        ),
        ([], "No file was chosen", "no_file"),
    ],
)
def test_refused_attachments_write_nothing(
    thread_id: str, files, message: str, code: str, app
) -> None:
    with pytest.raises(workspace.AttachmentRefused, match=message) as refused:
        workspace.attach_files(app, "owner-1", thread_id, files)
    assert refused.value.code == code
    assert root().store.list_files(thread_id) == []


def test_a_directory_in_the_uploaded_name_is_dropped(thread_id: str, app) -> None:
    assert workspace.attach_files(app, "owner-1", thread_id, [("../../etc/passwd", b"x")]) == [
        "passwd"
    ]


def test_a_windows_path_in_the_uploaded_name_is_dropped_too(thread_id: str, app) -> None:
    uploads = [("C:\\Users\\me\\a.py", b"x"), ("..\\..\\evil.py", b"y")]
    assert workspace.attach_files(app, "owner-1", thread_id, uploads) == ["a.py", "evil.py"]


def test_a_name_windows_reads_as_a_drive_or_stream_is_refused(thread_id: str, app) -> None:
    with pytest.raises(workspace.AttachmentRefused, match="a:b.py: 'a:b.py' contains ':'"):
        workspace.attach_files(app, "owner-1", thread_id, [("a:b.py", b"x")])
    assert root().store.list_files(thread_id) == []


def test_names_stored_before_the_path_rule_leave_only_under_safe_names(
    thread_id: str, tmp_path: Path, app
) -> None:
    from tests.chat_app.db.backends import plant_legacy_file

    workspace.attach_files(app, "owner-1", thread_id, [("a.py", b"ok")])
    for legacy in ("..\\..\\evil.txt", "C:\\Windows\\win.ini", "x:stream.txt"):
        plant_legacy_file(root().store, thread_id, legacy, legacy)

    data = workspace.workspace_zip(app, "owner-1", thread_id)
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert sorted(archive.namelist()) == [
        "C_/Windows/win.ini",
        "_/_/evil.txt",
        "a.py",
        "x_stream.txt",
    ]
    assert archive.read("_/_/evil.txt") == b"..\\..\\evil.txt"
    folder = tmp_path / "extracted"
    for info in archive.infolist():  # what a naive extractor does, on either system
        for target in (folder / info.filename, folder.joinpath(*info.filename.split("\\"))):
            assert target.resolve().is_relative_to(folder.resolve())
    assert workspace.download_name("..\\..\\evil.txt") == "evil.txt"
    assert workspace.download_name("C:\\Windows\\win.ini") == "win.ini"
    assert workspace.download_name("src/app.py") == "app.py"


def test_another_owner_can_neither_attach_nor_read(thread_id: str, app) -> None:
    workspace.attach_files(app, "owner-1", thread_id, [("a.py", b"secret = 1")])

    with pytest.raises(workspace.AttachmentRefused, match="does not exist"):
        workspace.attach_files(app, "owner-2", thread_id, [("b.py", b"x")])
    assert workspace.list_files(app, "owner-2", thread_id) == []
    assert workspace.read_file(app, "owner-2", thread_id, "a.py") is None
    assert workspace.workspace_zip(app, "owner-2", thread_id) is None
