"""Memory is private: what memroute creates under a root is readable by its owner only.

Folders are made 0700 and files 0600 whatever the umask (USER.md, MEMORY.md, their temps, .bak
copies and journals, lock files, the database and, through SQLite, its -wal and -shm files,
which take the database file's mode). A file memroute rewrites keeps the mode it had (0600 stays
0600; a mode the owner chose stays theirs); folders and files that exist already are left as
they are.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


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
