"""Work items an agent wrote down: plan and checklist files it wrote, edited, read back or
wrote with a shell heredoc (``- [ ]``/``- [x]`` under their headings, tables with a status
column), and the numbered plans it stated in its own words. Pure functions; each event says
what proves it. :mod:`agent_core.handoff._work_sources` reads the trackers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_core.handoff._work_sources import ItemEvent

__all__ = ["PlanFiles", "TextPlan", "heredoc_writes", "text_plan"]


# --- plan and checklist files ------------------------------------------------------------------

_BOX_RE = re.compile(r"^\s*[-*+]\s+\[([ xX~!-])\]\s+(.+?)\s*$")
_HEADING_RE = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_ROW_RE = re.compile(r"^\s*\|(.+)\|\s*$")
_LINE_NUMBER_RE = re.compile(r"^\s*\d+(?:→|\t|: )")
_ITEM_ID_RE = re.compile(
    r"^(?:[A-Z]{1,6}-?\d+(?:\.\d+)*|(?:task|phase|step|stage|milestone|part|package)\s+\d+"
    r"(?:\.\d+)*)\b",
    re.I,
)
_DONE_MARK = re.compile(r"✅|✔|☑|\((?:done|complete[d]?)\)", re.I)
_CELL_STATE = (
    (re.compile(r"✅|✔|☑|^\[x\]$|\b(?:done|complete[d]?|closed|finished|merged)\b", re.I), "done"),
    (re.compile(r"🚧|🔄|⏳|\b(?:in[ _-]progress|wip|doing|started|active)\b", re.I), "in_progress"),
    (re.compile(r"⛔|🚫|\bblocked\b", re.I), "blocked"),
    (
        re.compile(r"⬜|☐|^\[ \]$|^$|\b(?:todo|to do|pending|open|not started|planned)\b", re.I),
        "open",
    ),
)
_PLAN_SUFFIXES = (".md", ".markdown", ".txt", ".org", ".rst")
_HEREDOC_RE = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")
_REDIRECT_RE = re.compile(r"(?:^|\s)(?:cat|tee)\b[^\n]*?(?:>\s*|tee\s+(?:-a\s+)?)([^\s<>|;&]+)")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _reworded(plan: _PlanFile, box: str) -> str | None:
    """The item of a box an edit reworded ("- [x] Add X (done in WP4)"): the known box it
    replaces leaves the list."""
    words = _words(box)
    best, score = None, 0.5
    for key, text in plan.boxes:
        known = _words(text)
        overlap = len(words & known) / max(len(words | known), 1)
        if overlap > score:
            best, score = (key, text), overlap
    if best is None:
        return None
    del plan.boxes[best]
    return best[0]


def _same_box(plan: _PlanFile, box: str, ticked: bool) -> str | None:
    """The item of a box a fragment shows without its heading: of the boxes with this text
    ("Verify with `npm run check`" under every item), the first one not ticked yet when it is
    ticked now, else the last one ticked."""
    keys = [key for key, text in plan.boxes if text == box]
    if not keys:
        return None
    if ticked:
        return next((k for k in keys if not plan.boxes[k, box]), keys[-1])
    return next((k for k in reversed(keys) if plan.boxes[k, box]), keys[0])


def _cell_state(cell: str) -> str | None:
    return next((state for pattern, state in _CELL_STATE if pattern.search(cell.strip())), None)


@dataclass
class _PlanFile:
    #: (item key, box text) -> ticked; item key -> (title, id), in order
    boxes: dict[tuple[str, str], bool] = field(default_factory=dict)
    items: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    marked: dict[str, str] = field(default_factory=dict)  # a state written on the item itself
    read_titles: set[str] = field(default_factory=set)  # titled from a read, not a write


@dataclass
class PlanFiles:
    """Plan and checklist files as their writes, edits and reads show them."""

    files: dict[str, _PlanFile] = field(default_factory=dict)
    events: list[ItemEvent] = field(default_factory=list)
    #: Files the agent itself wrote in this record: what it reads back of them are its words.
    own: frozenset[str] = frozenset()
    _titled: set[str] = field(default_factory=set)

    def observe(self, at: int, path: str, text: str, *, whole: bool, how: str) -> None:
        """Read ``text`` (the whole file when ``whole``, else a fragment) of ``path``."""
        if not path.lower().endswith(_PLAN_SUFFIXES) or "[" not in text and "|" not in text:
            return
        if whole or path not in self.files:
            self.files[path] = _PlanFile()
        plan = self.files[path]
        touched = self._parse(path, plan, text)
        for key in touched:
            if how == "read" and key not in plan.read_titles and key in self._titled:
                pass
            elif how == "read" and path not in self.own:
                plan.read_titles.add(key)
            else:
                plan.read_titles.discard(key)
            self._titled.add(key)
            self.events.append(self._state(at, path, plan, key, how))

    def _item(self, path: str, plan: _PlanFile, heading: str) -> str:
        title = _DONE_MARK.sub("", heading).strip(" *_`:-")
        found = _ITEM_ID_RE.match(title)
        key = f"plan:{path}:{found.group(0) if found else title}"
        plan.items.setdefault(key, (title, found.group(0) if found else None))
        if _DONE_MARK.search(heading):
            plan.marked[key] = "done"
        return key

    def _parse(self, path: str, plan: _PlanFile, text: str) -> list[str]:
        touched: dict[str, None] = {}
        heading: str | None = None
        columns: list[str] | None = None
        for raw in text.splitlines():
            line = _LINE_NUMBER_RE.sub("", raw, count=1)
            if found := _HEADING_RE.match(line):
                heading, columns = found.group(1), None
            elif found := _BOX_RE.match(line):
                box, ticked = found.group(2).strip(), found.group(1) in "xX"
                if heading:
                    key = self._item(path, plan, heading)
                else:
                    key = (
                        _same_box(plan, box, ticked)
                        or _reworded(plan, box)
                        or self._item(path, plan, box)
                    )
                plan.boxes[key, box] = ticked
                touched[key] = None
            elif found := _ROW_RE.match(line):
                cells = [c.strip() for c in found.group(1).split("|")]
                if columns is None:
                    columns = [c.lower() for c in cells]
                    if not any(c in ("status", "state", "done") for c in columns):
                        columns = []
                    continue
                if not columns or set("".join(cells)) <= set("-: "):
                    continue
                state_at = next(
                    i for i, c in enumerate(columns) if c in ("status", "state", "done")
                )
                named = [c for i, c in enumerate(cells) if i != state_at and c][:2]
                state = _cell_state(cells[state_at]) if state_at < len(cells) else None
                if not named or state is None:
                    continue
                key = self._item(path, plan, " ".join(named))
                plan.marked[key] = state
                touched[key] = None
            elif not line.strip():
                columns = None
        return list(touched)

    def _state(self, at: int, path: str, plan: _PlanFile, key: str, how: str) -> ItemEvent:
        title, ident = plan.items[key]
        ticks = [ticked for (k, _), ticked in plan.boxes.items() if k == key]
        if key in plan.marked and not ticks:
            state = plan.marked[key]
        elif ticks and all(ticks) or plan.marked.get(key) == "done":
            state = "done"
        else:
            state = "in_progress" if any(ticks) else "open"
        done = sum(ticks)
        count = f" ({done} of {len(ticks)} boxes ticked)" if ticks else ""
        evidence = f"{how} {path}{count}"
        from_output = key in plan.read_titles
        return ItemEvent(at, key, "plan_file", evidence, title, ident, state, None, from_output)


def heredoc_writes(command: str) -> list[tuple[str, str]]:
    """(path, text) of every ``cat > path <<EOF … EOF`` in a shell command."""
    writes = []
    for found in _HEREDOC_RE.finditer(command):
        line_start = command.rfind("\n", 0, found.start()) + 1
        line_end = command.find("\n", found.end())
        target = _REDIRECT_RE.search(command[line_start : line_end if line_end >= 0 else None])
        if target is None or line_end < 0:
            continue
        end = re.compile(rf"^\s*{re.escape(found.group(1))}\s*$", re.M).search(command, line_end)
        body = command[line_end + 1 : end.start() if end else len(command)]
        writes.append((target.group(1).strip("'\""), body))
    return writes


# --- plans the agent stated ---------------------------------------------------------------------

_NUMBERED_RE = re.compile(r"^\s*(\d+)[.)]\s+(.+?)\s*$")
_INLINE_STEP_RE = re.compile(r"(?:^|\s)(\d+)[.)]\s+")
_PLAN_INTRO_RE = re.compile(
    r"\b(?:I'll|I will|I'm going to|I am going to|let me|let's|I need to|next|plan|steps?"
    r"|going to|remaining|to do)\b",
    re.I,
)


@dataclass(frozen=True)
class TextPlan:
    """A numbered plan the agent stated at message ``at``: its intro line and its steps."""

    at: int
    intro: str
    steps: tuple[str, ...]


def _clean_step(text: str) -> str:
    return " ".join(re.sub(r"\*\*|__", "", text).split()).strip()[:200]


def _is_plan(intro: str, steps: Sequence[str]) -> bool:
    """Steps that say what to do (not headings ending in ":"), after words that announce them."""
    return (
        len(steps) >= 2
        and all(len(s.split()) >= 2 and not s.endswith(":") for s in steps)
        and bool(_PLAN_INTRO_RE.search(intro))
    )


def _plans_in(at: int, text: str) -> list[TextPlan]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    lines = text.splitlines()
    plans: list[TextPlan] = []
    row = 0
    while row < len(lines):
        found = _NUMBERED_RE.match(lines[row])
        if not found or found.group(1) != "1":
            inline = _INLINE_STEP_RE.split(lines[row])
            numbers = inline[1::2]
            steps = [_clean_step(s) for s in inline[2::2]]
            if numbers[:2] == ["1", "2"] and _is_plan(inline[0], steps):
                plans.append(TextPlan(at, inline[0].strip(), tuple(steps)))
            row += 1
            continue
        intro = next((lines[i] for i in range(row - 1, -1, -1) if lines[i].strip()), "")
        steps, expected = [], 1
        while row < len(lines):
            found = _NUMBERED_RE.match(lines[row])
            if found and found.group(1) == str(expected):
                steps.append(_clean_step(found.group(2)))
                expected += 1
            elif lines[row].strip() and not lines[row].startswith((" ", "\t")):
                break
            row += 1
        if _is_plan(intro, steps):
            plans.append(TextPlan(at, intro.strip(), tuple(steps)))
    return plans


def text_plan(said: Sequence[tuple[int, str]]) -> TextPlan | None:
    """The newest numbered plan the agent stated ("I'll update: 1. … 2. …")."""
    for at, text in reversed(said):
        if found := _plans_in(at, text):
            return found[-1]
    return None
