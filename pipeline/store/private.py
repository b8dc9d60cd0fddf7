"""Memory is private: what memroute creates under a root is readable by its owner only.

Folders are made 0700 and files 0600 whatever the umask (USER.md, MEMORY.md, their temps, .bak
copies and journals, lock files, the database and, through SQLite, its -wal and -shm files,
which take the database file's mode). A file memroute rewrites keeps the mode it had (0600 stays
0600; a mode the owner chose stays theirs); folders and files that exist already are left as
they are.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pipeline.errors import BadKeyFile

FILE_MODE = 0o600
DIR_MODE = 0o700
KEY_BYTES = 32


def make_private_dir(path: Path) -> None:
    """`mkdir -p path`, each folder it creates 0700."""
    missing: list[Path] = []
    p = Path(path)
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)  # mkdir's mode went through the umask


def create_private_file(path: Path) -> None:
    """Create `path` empty and 0600 if it does not exist (SQLite then opens it as a new database)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def _key_in(path: Path, size: int) -> bytes | None:
    """The key in `path`, None when there is no file; BadKeyFile when it is not a usable key."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(mode):
        raise BadKeyFile(f"{path} is not a regular file: move it away (a new key is made at start)")
    key = path.read_bytes()
    if len(key) < size:
        raise BadKeyFile(f"{path} holds {len(key)} bytes, not a key of {size}: it is empty or damaged; delete it "
                         "(a new key is made at start: pages and forms signed with the old one stop working)")
    return key


def private_key(path: Path, *, size: int = KEY_BYTES) -> bytes:
    """The secret key kept in `path` (mode 0600), made the first time. Several processes starting at
    once agree on one: each writes its own candidate, and only the first link to the name wins.
    A key file that is empty or too short is refused (BadKeyFile), never used."""
    key = _key_in(path, size)
    if key is not None:
        return key
    make_private_dir(path.parent)
    candidate = path.parent / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}"
    fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        os.write(fd, os.urandom(size))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(candidate, path)
    except FileExistsError:
        pass  # another process won; its key is the key
    finally:
        candidate.unlink()
    return _made(path, size)


def _made(path: Path, size: int) -> bytes:
    key = _key_in(path, size)
    if key is None:
        raise BadKeyFile(f"{path} was removed while it was being made: start again")
    return key
