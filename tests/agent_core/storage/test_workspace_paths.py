"""The one rule for workspace names: every name the workspace keeps stays inside the folder
it is extracted to, on Linux and on Windows alike."""

from __future__ import annotations

import ntpath
import posixpath

import pytest

from agent_core.errors import StoreError, ToolInputError
from agent_core.storage._workspace import (
    base_name,
    portable_name,
    portable_names,
    stored_path,
    workspace_path,
)


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("..\\..\\evil.txt", "contains a backslash; separate folders with '/'"),
        ("src\\app.py", "contains a backslash"),
        ("\\\\server\\share\\x.txt", "is an absolute path"),
        ("C:\\Windows\\x.txt", "is an absolute path"),
        ("C:evil.txt", "contains ':', which names a drive or a stream on Windows"),
        ("notes.txt:hidden", "contains ':'"),
        ("a/.. /b.txt", "made of dots and spaces only"),
        ("a/.../b.txt", "made of dots and spaces only"),
        ("line\nbreak.txt", "control characters"),
        ("tab\there.txt", "control characters"),
    ],
)
def test_names_that_leave_a_folder_on_some_system_are_refused(given: str, why: str) -> None:
    with pytest.raises(ToolInputError, match=why.replace("(", r"\(")):
        workspace_path(given)


@pytest.mark.parametrize(
    "kept",
    [
        "src/app.py",
        ".env",
        "a/.hidden/b.txt",
        "x.tar.gz",
        "caf\u00e9/r\u00e9sum\u00e9.md",
        "with space/a b.txt",
    ],
)
def test_ordinary_names_are_kept_as_they_are(kept: str) -> None:
    assert workspace_path(kept) == kept == portable_name(kept) == stored_path(kept)


def _windows_segment(part: str) -> str:
    """A segment as Windows may read it, taken at its worst: trailing spaces dropped, and
    two dots or more (``..``, ``.. ``, ``...``) read as the parent folder."""
    part = part.rstrip(" ")
    if len(part) >= 2 and set(part) == {"."}:
        return ".."
    return part.rstrip(". ") if part != "." else part


def _lands_inside(name: str) -> bool:
    """Whether extracting ``name`` into a folder writes inside it, on POSIX and on Windows
    (where ``\\`` separates too, ``X:`` names a drive and each segment loses its trailing
    dots and spaces)."""
    posix = posixpath.normpath(posixpath.join("/base", name))
    windows_name = "\\".join(map(_windows_segment, name.replace("/", "\\").split("\\")))
    windows = ntpath.normpath(ntpath.join("C:\\base", windows_name))
    return (
        posix.startswith("/base/") and windows.startswith("C:\\base\\") and ":" not in windows[2:]
    )


@pytest.mark.parametrize(
    "stored",
    ["..\\..\\evil.txt", "\\\\server\\share\\x", "D:evil", ".. /x", "x/.. /.. /y", "..", "\\"],
)
def test_a_name_stored_before_the_rule_gets_a_portable_name(stored: str) -> None:
    assert not _lands_inside(stored)
    name = portable_name(stored)
    assert _lands_inside(name)
    assert workspace_path(name) == name  # the portable name is itself a valid name


@pytest.mark.parametrize(("stored", "name"), [("a:b/c", "a_b/c"), ("x\r\ny", "x__y")])
def test_streams_and_control_characters_become_underscores(stored: str, name: str) -> None:
    assert portable_name(stored) == name


def test_portable_names_never_meet() -> None:
    names = portable_names(["a/b.txt", "a\\b.txt", "a:b.txt", "a_b.txt", "Make\\file"])
    assert names == {
        "Make\\file": "Make/file",
        "a/b.txt": "a/b.txt",
        "a:b.txt": "a_b-2.txt",
        "a\\b.txt": "a/b-2.txt",
        "a_b.txt": "a_b.txt",
    }
    assert len(set(names.values())) == len(names)


def test_a_store_refuses_a_name_outside_the_rule_or_not_in_its_stored_form() -> None:
    with pytest.raises(StoreError, match="backslash.*nothing was stored"):
        stored_path("..\\..\\evil.txt")
    with pytest.raises(StoreError, match="not a stored path"):
        stored_path("./src//app.py")


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ("C:\\Users\\me\\session.jsonl", "session.jsonl"),
        ("../../etc/passwd", "passwd"),
        ("..\\..\\evil.py", "evil.py"),
        ("plain.txt", "plain.txt"),
    ],
)
def test_the_base_name_of_an_upload_drops_folders_of_either_kind(given: str, name: str) -> None:
    assert base_name(given) == name
