"""The README and docs link only to files inside the repository, and those files exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Inline links and images ``[text](target)`` and autolinks ``<scheme:…>``.
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)")
_AUTOLINK = re.compile(r"<([a-z][a-z0-9+.-]*:[^>\s]+)>", re.IGNORECASE)


def outside_links(path: Path, root: Path = ROOT) -> list[str]:
    """Links in ``path`` that leave the repository or name a file it does not hold."""
    text = path.read_text(encoding="utf-8")
    bad = list(_AUTOLINK.findall(text))
    for target in _LINK.findall(text):
        file_part = target.split("#", 1)[0]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("/"):
            bad.append(target)
        elif file_part:
            resolved = (path.parent / file_part).resolve()
            if not resolved.is_relative_to(root) or not resolved.exists():
                bad.append(target)
    return bad


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_link_only_inside_the_repository(path: Path) -> None:
    assert outside_links(path) == []


def test_the_check_catches_outside_and_missing_links(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text("# layers\n", encoding="utf-8")
    (tmp_path / "x.md").write_text("outside docs/, inside the root\n", encoding="utf-8")
    sample = tmp_path / "docs" / "sample.md"
    sample.write_text(
        "[a](https://example.com) [b](../../y.md) [c](missing.md) <http://x.y> "
        "[d](architecture.md#layers) [e](../x.md) [f](/etc/hosts)\n",
        encoding="utf-8",
    )
    assert outside_links(sample, tmp_path) == [
        "http://x.y",
        "https://example.com",
        "../../y.md",
        "missing.md",
        "/etc/hosts",
    ]
