"""The workspace's way into the sandbox and back, as tar streams, without a sandbox."""

from __future__ import annotations

import io
import tarfile

from agent_core.sandbox._changes import Entry
from agent_core.sandbox._workspace_dir import pack, placeable, tmpfs_bytes, unpack


def _tar(members: list[tuple[str, bytes | None, bytes]]) -> io.BytesIO:
    """(name, type, data) members as GNU tar writes them (``./`` before each name)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name, kind, data in members:
            info = tarfile.TarInfo(f"./{name}")
            info.type = kind or tarfile.REGTYPE
            if info.type == tarfile.SYMTYPE:
                info.linkname = data.decode()
            elif info.type == tarfile.LNKTYPE:
                info.linkname = f"./{data.decode()}"
            else:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    buffer.seek(0)
    return buffer


def _unpack(stream: io.BytesIO, before=None, **limits):
    options = {"limit": 100, "max_entries": 50, "max_changed_bytes": 1000, **limits}
    return unpack(stream, before=before or {}, **options)


def test_what_goes_in_comes_back_as_it_was() -> None:
    files = {"a.py": "print(1)\n", "src/b.txt": "h\u00e9\n"}
    back = _unpack(io.BytesIO(pack(files)), before=files)
    assert back.problem == ""
    assert back.entries == {
        "a.py": Entry("text", "print(1)\n", 9),
        "src/b.txt": Entry("text", "h\u00e9\n", 4),
    }


def test_a_file_under_another_files_path_is_not_placed() -> None:
    assert placeable({"a": "1", "a/b": "2", "c/d": "3"}) == {"a": "1", "c/d": "3"}
    assert placeable({"x/y": "1", "x": "2"}) == {"x": "2"}  # sorted: x before x/y


def test_the_tmpfs_is_sized_in_whole_pages() -> None:
    assert tmpfs_bytes({"a": "x", "d/b": "y" * 4097}) == (1 + 2 + 1) * 4096


def test_links_binary_and_large_files_are_told_apart_and_caches_left_out() -> None:
    stream = _tar(
        [
            ("link", tarfile.SYMTYPE, b"/etc/passwd"),
            ("bin", None, b"\x00\x01"),
            ("big", None, b"x" * 101),
            ("fifo", tarfile.FIFOTYPE, b""),
            ("t.txt", None, b"t"),
            ("hard", tarfile.LNKTYPE, b"t.txt"),
            ("pkg/__pycache__/m.pyc", None, b"\x00"),
        ]
    )
    back = _unpack(stream)
    assert {path: entry.kind for path, entry in back.entries.items()} == {
        "link": "symlink",
        "bin": "binary",
        "big": "too_large",
        "fifo": "other",
        "t.txt": "text",
        "hard": "text",
    }
    assert back.entries["hard"].text == "t"


def test_too_many_entries_are_refused_as_a_whole() -> None:
    stream = _tar([(f"f{i}", None, b"x") for i in range(60)])
    back = _unpack(stream, max_entries=50)
    assert back.entries == {} and "more than 50 files" in back.problem


def test_too_much_changed_text_is_refused_but_unchanged_text_does_not_count() -> None:
    same = {f"f{i}": "x" * 90 for i in range(20)}  # 1,800 bytes, all unchanged
    assert (
        _unpack(_tar([(p, None, t.encode()) for p, t in same.items()]), before=same).problem == ""
    )
    back = _unpack(_tar([(p, None, b"y" * 90) for p in same]), before=same)
    assert back.entries == {} and "created or changed more than" in back.problem


def test_a_broken_or_empty_stream_writes_nothing_back() -> None:
    whole = _tar([("a.txt", None, b"a" * 50)]).getvalue()
    for broken in (b"", whole[:700]):
        back = _unpack(io.BytesIO(broken))
        assert back.entries == {} and "could not be read back" in back.problem
