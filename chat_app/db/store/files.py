"""The thread's workspace files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlmodel import Session, select

from agent_core.storage import stored_path, utcnow
from agent_core.validation import sanitize_text
from chat_app.db.models import (
    ThreadFile,
)
from chat_app.db.store.core import StoreCore


class WorkspaceFiles(StoreCore):
    """The port's workspace files: read, write, change together, list."""

    def read_file(self, thread_id: str, path: str) -> str | None:
        with self._tx(write=False) as db:
            row = db.get(ThreadFile, (thread_id, path))
            return None if row is None else row.content

    @staticmethod
    def _put_file(db: Session, thread_id: str, path: str, content: str) -> None:
        # Callers hold the thread lock, so get-then-insert cannot race another writer.
        # Every way into a workspace ends here: the one path rule is checked at the door.
        path, content = stored_path(path), sanitize_text(content)
        row = db.get(ThreadFile, (thread_id, path))
        if row is None:
            db.add(ThreadFile(thread_id=thread_id, path=path, content=content))
        else:
            row.content = content
            row.updated_at = utcnow()
        db.flush()

    def write_file(self, thread_id: str, path: str, content: str) -> None:
        with self._tx(write=True) as db:
            self._lock_turn(db, thread_id)
            self._put_file(db, thread_id, path, content)

    def apply_file_changes(
        self, thread_id: str, *, written: Mapping[str, str], deleted: Sequence[str]
    ) -> None:
        with self._tx(write=True) as db:
            self._lock_turn(db, thread_id)
            for path, content in written.items():
                self._put_file(db, thread_id, path, content)
            for path in deleted:
                row = db.get(ThreadFile, (thread_id, path))
                if row is not None:
                    db.delete(row)
            db.flush()

    def list_files(self, thread_id: str) -> list[str]:
        with self._tx(write=False) as db:
            paths = db.exec(select(ThreadFile.path).where(ThreadFile.thread_id == thread_id))
            # Sorted here, not in SQL: database collations disagree on punctuation order.
            return sorted(paths)
