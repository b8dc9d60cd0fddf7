"""The file side of the store: one user's folder (id validation, the cross-process lock, crash-safe
commits). `FileDocuments` is the `DocumentStore` (pipeline/store/interface.py) of a root of files.

A commit writes both ledger files and the store's records as one unit (Hermes-style: lock,
re-read under the lock, temp file, fsync, rename), with the store as the commit point:

1. under the lock, write the new files to hidden temp files and fsync them;
2. write a journal naming the turn id and the temp files, fsync it;
3. commit the store transaction, which marks the turn done;
4. rename the temps over USER.md / MEMORY.md, fsync the folder, delete the journal.

A process killed anywhere leaves either the old files or the new ones. The next writer (under
the lock) finds the journal and rolls forward if the store says the turn is done, else rolls
back by deleting the temps. Readers never see a torn file because renames are atomic.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import stat
import unicodedata
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pipeline.errors import InvalidUserId, UnreadableFile
from pipeline.store.interface import LedgerTexts
from pipeline.store.private import FILE_MODE, make_private_dir
from pipeline.store.rules import scrubbed_copy

USER_FILE = "USER.md"
MEMORY_FILE = "MEMORY.md"
MAX_USER_ID_LENGTH = 128
_ID_PUNCTUATION = frozenset("._-@+")
_JOURNAL_PREFIX = ".commit-"
_TEMP_SUFFIX = ".tmp"


# The store's own files live next to the user folders (memroute.db, memroute.db-wal, -shm,
# -journal, .memroute.db.writer, memroute.review.key): ids in these namespaces would collide with them.
RESERVED_PREFIXES = (".", "memroute.")
# Server files older versions kept under names a user id can take, and where they are now: the file
# moves on first use (the server's start), or when a user of that name needs its folder.
MOVED_SERVER_FILES = {"review.key": "memroute.review.key"}


def move_server_file(root: Path, old_name: str) -> None:
    """Move an older version's server file (MOVED_SERVER_FILES) to its reserved name. Only a regular
    file moves; a folder of that name is a user's and stays. When the new file exists, the old one
    is stale and goes."""
    old = root / old_name
    try:
        if not stat.S_ISREG(os.lstat(old).st_mode):
            return
    except FileNotFoundError:
        return
    try:
        os.link(old, root / MOVED_SERVER_FILES[old_name])
    except FileExistsError:
        pass  # moved (or made anew) by another process
    except OSError:
        return  # a read-only root: left where it is (a read finds no folder there)
    with contextlib.suppress(OSError):
        old.unlink(missing_ok=True)


def validate_user_id(user_id: str) -> str:
    if not isinstance(user_id, str) or not user_id:
        raise InvalidUserId("invalid user id: it must be a non-empty string")
    if len(user_id) > MAX_USER_ID_LENGTH:
        raise InvalidUserId(f"invalid user id: longer than {MAX_USER_ID_LENGTH} characters")
    if "\x00" in user_id or "/" in user_id or "\\" in user_id or ".." in user_id or os.path.isabs(user_id):
        raise InvalidUserId(f"invalid user id {user_id!r}: it could escape the root")
    # Letters, marks (Thai vowels and tones are marks) and digits of any script, plus a little punctuation.
    allowed = all(unicodedata.category(c)[0] in "LMN" or c in _ID_PUNCTUATION for c in user_id)
    if not allowed or user_id.startswith("."):
        raise InvalidUserId(f"invalid user id {user_id!r}: use letters, digits and . _ - @ + (not starting with '.')")
    # casefold: on a case-insensitive file system "Memroute.db" is the database too.
    if user_id.casefold().startswith(RESERVED_PREFIXES):
        raise InvalidUserId(f"invalid user id {user_id!r}: ids starting with 'memroute.' are reserved for the store's files")
    return user_id


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durably(path: Path, data: bytes, mode: int | None = None) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        # The file it replaces keeps its permissions (0600 stays 0600); a new one is private (0600).
        os.fchmod(fd, FILE_MODE if mode is None else mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _mode_of(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def _read_if_there(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError):  # no folder, or a file where the folder would be
        return None


@functools.lru_cache(maxsize=4096)
def _stays_inside(root: Path, user_id: str) -> bool:
    """The user's folder resolves to a direct child of the root (no symlink out); asked once per
    user and root, not on every turn (two realpath walks)."""
    return (root / user_id).resolve().parent == root.resolve()


class UserDir:
    def __init__(self, root: Path, user_id: str) -> None:
        self.user_id = validate_user_id(user_id)
        self.root = root
        self.path = root / self.user_id
        self.user_path = self.path / USER_FILE
        self.memory_path = self.path / MEMORY_FILE
        # Belt and braces: the id check above should make this impossible.
        if not _stays_inside(root, self.user_id):
            raise InvalidUserId(f"invalid user id {user_id!r}: it could escape the root")
        if self.user_id in MOVED_SERVER_FILES:  # user "review.key" on a root an older server used
            move_server_file(root, self.user_id)

    def read(self) -> LedgerTexts:
        user_raw, memory_raw = _read_if_there(self.user_path), _read_if_there(self.memory_path)
        return LedgerTexts(
            user=self._decode(self.user_path, user_raw),
            memory=self._decode(self.memory_path, memory_raw),
            user_raw=user_raw,
            memory_raw=memory_raw,
        )

    def read_lenient(self) -> tuple[LedgerTexts, list[str]]:
        """For readers (show, context, export): never raises for one bad file. A file that is not
        UTF-8 is shown with replacement characters, one that cannot be read as absent; each such
        file gets one line in the returned warnings."""
        warnings: list[str] = []
        raws: list[bytes | None] = []
        texts: list[str | None] = []
        for path in (self.user_path, self.memory_path):
            try:
                raw = _read_if_there(path)
            except OSError as e:
                warnings.append(f"cannot read {path.name}: {e.strerror or e}; shown as empty")
                raws.append(None)
                texts.append(None)
                continue
            try:
                texts.append(self._decode(path, raw))
            except UnreadableFile as e:
                warnings.append(f"{e}; shown with replacement characters")
                texts.append(raw.decode("utf-8", errors="replace") if raw is not None else None)
            raws.append(raw)
        return LedgerTexts(user=texts[0], memory=texts[1], user_raw=raws[0], memory_raw=raws[1]), warnings

    def has_pending_commit(self) -> bool:
        """A commit journal is there: a writer is committing, or was killed after the store's commit."""
        try:
            return any(n.startswith(_JOURNAL_PREFIX) for n in os.listdir(self.path))
        except OSError:
            return False

    def _decode(self, path: Path, raw: bytes | None) -> str | None:
        if raw is None:
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            self.backup(path, raw)
            raise UnreadableFile(
                f"{path} is not valid UTF-8 (byte {e.start}); left as is, copy kept at {path.name}.bak"
            ) from None

    def keep_copy(self, name: str, raw: bytes) -> str:
        """Keep a copy of a document that will not be rewritten (it does not round-trip); its name."""
        return self.backup(self.path / name, raw).name

    def copies(self) -> dict[str, str]:
        """The kept copies (subject access), by name."""
        return {p.name: p.read_bytes().decode("utf-8", errors="replace") for p in sorted(self.path.glob("*.bak"))}

    def erase_from_copies(self, needles: list[str]) -> int:
        """Scrub erased values out of the kept copies (forget --purge)."""
        if not needles or not self.path.is_dir():
            return 0
        scrubbed = 0
        for bak in self.path.glob("*.bak"):
            kept = scrubbed_copy(bak.read_bytes(), needles)
            if kept is not None:
                bak.write_bytes(kept)
                scrubbed += 1
        return scrubbed

    def delete_all(self) -> None:
        """Remove the user's folder and everything in it (delete-user). Call under lock()."""
        import shutil

        for child in self.path.iterdir():
            if child.name == ".lock":
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()

    def drop(self) -> None:
        """After delete_all() and the lock's release: the emptied folder (and its lock file) go."""
        import shutil

        shutil.rmtree(self.path, ignore_errors=True)

    def backup(self, path: Path, raw: bytes) -> Path:
        """Keep a .bak copy of a file we refuse to rewrite blindly (the first copy wins)."""
        bak = path.with_name(path.name + ".bak")
        if not bak.exists():
            _write_durably(bak, raw, _mode_of(path))
        return bak

    @contextlib.contextmanager
    def lock(self, recover: Callable[[str], bool] | None = None) -> Iterator[None]:
        """Exclusive per-user lock across processes and threads (flock on a fresh fd each time).

        `recover(turn_id)` says whether an interrupted commit reached the store; it is asked
        for every journal left behind by a killed writer.
        """
        make_private_dir(self.path)
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._recover(recover)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _recover(self, committed: Callable[[str], bool] | None) -> None:
        names = os.listdir(self.path)  # one listing per commit: this runs under every lock
        journals = sorted(self.path / n for n in names if n.startswith(_JOURNAL_PREFIX))
        for journal in journals:
            try:
                info = json.loads(journal.read_text("utf-8"))
                roll_forward = committed is not None and committed(str(info["turn_id"]))
                renames: dict[str, str] = info["renames"]
            except (ValueError, KeyError, OSError):
                roll_forward, renames = False, {}
            for temp_name, final_name in renames.items():
                temp = self.path / temp_name
                if temp.exists():
                    if roll_forward:
                        os.replace(temp, self.path / final_name)
                    else:
                        temp.unlink()
            journal.unlink(missing_ok=True)
        # Temps with no journal come from a writer killed before step 2.
        for name in names:
            if name.startswith(".") and name.endswith(_TEMP_SUFFIX):
                (self.path / name).unlink(missing_ok=True)
        if journals:
            _fsync_dir(self.path)

    def commit(self, turn_id: str, files: dict[str, str], store_commit: Callable[[], None]) -> None:
        """Write `files` ({"USER.md": text, ...}) and the store records as one unit. Call under lock()."""
        if not files:  # nothing to rename: the store transaction alone is the unit
            store_commit()
            return
        tx = os.urandom(6).hex()
        renames: dict[str, str] = {}
        for name, text in files.items():
            temp_name = f".{name}.{tx}{_TEMP_SUFFIX}"
            _write_durably(self.path / temp_name, text.encode("utf-8"), _mode_of(self.path / name))
            renames[temp_name] = name
        journal = self.path / f"{_JOURNAL_PREFIX}{tx}"
        _write_durably(journal, json.dumps({"turn_id": turn_id, "renames": renames}).encode("utf-8"))
        _fsync_dir(self.path)
        try:
            store_commit()
        except BaseException:
            for temp_name in renames:
                (self.path / temp_name).unlink(missing_ok=True)
            journal.unlink(missing_ok=True)
            raise
        for temp_name, final_name in renames.items():
            os.replace(self.path / temp_name, self.path / final_name)
        _fsync_dir(self.path)
        journal.unlink(missing_ok=True)


class FileDocuments:
    """USER.md and MEMORY.md as files under ROOT/<user id>/ (the DocumentStore of a file root)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def documents(self, user_id: str) -> UserDir:
        return UserDir(self.root, user_id)

    def has_user(self, user_id: str) -> bool:
        return (self.root / validate_user_id(user_id)).is_dir()

    def user_summaries(self) -> list[dict[str, Any]]:
        """Every user folder under the root: file sizes (characters) and the last change (file mtime)."""
        if not self.root.is_dir():
            return []
        users = []
        for entry in sorted(self.root.iterdir()):
            try:
                validate_user_id(entry.name)
            except InvalidUserId:
                continue  # memroute.db, dot files, a stray folder with a name no user can have
            if not entry.is_dir():
                continue
            row: dict[str, Any] = {"user_id": entry.name, "user_chars": 0, "memory_chars": 0, "last_change": None}
            latest = 0.0
            for name, key in ((USER_FILE, "user_chars"), (MEMORY_FILE, "memory_chars")):
                path = entry / name
                try:
                    row[key] = len(path.read_text("utf-8", errors="replace"))
                    latest = max(latest, path.stat().st_mtime)
                except FileNotFoundError:
                    continue
            if latest:
                row["last_change"] = datetime.fromtimestamp(latest, tz=timezone.utc).isoformat(timespec="seconds")
            users.append(row)
        return users

    def has_any_documents(self) -> bool:
        if not self.root.is_dir():
            return False
        return any(
            (p / USER_FILE).exists() or (p / MEMORY_FILE).exists()
            for p in self.root.iterdir()
            if p.is_dir() and not p.name.startswith(".")
        )
