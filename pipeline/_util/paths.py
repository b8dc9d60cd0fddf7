"""Small path checks shared by the CLI's commands (kept apart so a command need not import doctor)."""

from __future__ import annotations

import os
from pathlib import Path


def root_writable(root: Path) -> bool:
    """Whether this process can write the root (or create it)."""
    probe = root
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


__all__ = ["root_writable"]
