"""`memroute import-mem0` checks the whole export before it writes anything: a later memory with a
user id that cannot be one, a created_at that cannot be read or lies in the future, is one line,
exit 2, and nothing written (no root, no database, no turn), whichever row it is on. The Python API
(import_mem0) is all or nothing too; both call the one check (check_items)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline import MemoryPipeline
from pipeline.cli import main
from pipeline.errors import ImportFormatError
from pipeline.integrations import imports
from pipeline.integrations.imports import import_mem0

GOOD = [
    {"id": "m1", "memory": "Works as a pharmacist", "user_id": "ivy", "created_at": "2026-01-10T10:00:00Z"},
    {"id": "m2", "memory": "Lives in Hobart", "user_id": "ivy", "created_at": "2026-02-01T08:30:00.123456-07:00"},
    {"id": "m3", "memory": "Prefers short answers", "user_id": "ivy"},
]
BAD_ROWS = {
    "user id with a slash": {"id": "m9", "memory": "Likes tea", "user_id": "../etc"},
    "reserved user id": {"id": "m9", "memory": "Likes tea", "user_id": "memroute.db"},
    "empty user id": {"id": "m9", "memory": "Likes tea", "user_id": ""},
    "unreadable date": {"id": "m9", "memory": "Likes tea", "user_id": "ivy", "created_at": "last Tuesday"},
    "future date": {"id": "m9", "memory": "Likes tea", "user_id": "ivy", "created_at": "2999-01-01T00:00:00Z"},
    "date as a number": {"id": "m9", "memory": "Likes tea", "user_id": "ivy", "created_at": 1767225600},
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("bad", list(BAD_ROWS))
@pytest.mark.parametrize("where", [0, 3])
def test_a_bad_memory_anywhere_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              bad: str, where: int) -> None:
    rows = list(GOOD)
    rows.insert(where, BAD_ROWS[bad])
    export = tmp_path / "export.json"
    export.write_text(json.dumps({"results": rows}), "utf-8")
    root = tmp_path / "root"
    code, out, err = run(capsys, "import-mem0", str(export), "--root", str(root))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(export) in lines[0] and f"memory {where + 1}" in lines[0], lines
    assert "nothing was imported" in lines[0] or "give --user" in lines[0]
    assert not root.exists()


def test_with_user_the_rows_user_ids_do_not_matter_but_their_dates_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "export.json"
    root = tmp_path / "root"
    export.write_text(json.dumps([*GOOD, BAD_ROWS["user id with a slash"]]), "utf-8")
    code, _, err = run(capsys, "import-mem0", str(export), "--user", "ivy", "--root", str(root))
    assert code == 0, err
    export.write_text(json.dumps([*GOOD, BAD_ROWS["future date"]]), "utf-8")
    before = sorted(p.name for p in (root / "ivy").iterdir())
    user_md = (root / "ivy" / "USER.md").read_bytes()
    code, _, err = run(capsys, "import-mem0", str(export), "--user", "ivy2", "--root", str(root))
    assert code == 2 and "in the future" in err
    assert not (root / "ivy2").exists() and sorted(p.name for p in (root / "ivy").iterdir()) == before
    assert (root / "ivy" / "USER.md").read_bytes() == user_md


def test_the_python_api_is_all_or_nothing_too(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path) as pipe:
        with pytest.raises(ImportFormatError, match="memory 4"):
            import_mem0(pipe, [*GOOD, BAD_ROWS["future date"]])
        assert pipe.store.turns("ivy") == [] and not (tmp_path / "ivy").exists()
        report = import_mem0(pipe, GOOD)
    assert report["items"] == 3 and report["users"] == ["ivy"]


def test_the_cli_and_the_api_call_the_one_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[str] = []
    real = imports.check_items

    def spy(items: Any, *, source: str, user_id: str | None = None) -> Any:
        seen.append(source)
        return real(items, source=source, user_id=user_id)

    monkeypatch.setattr(imports, "check_items", spy)
    export = tmp_path / "export.json"
    export.write_text(json.dumps([*GOOD, BAD_ROWS["unreadable date"]]), "utf-8")
    assert run(capsys, "import-mem0", str(export), "--root", str(tmp_path / "root"))[0] == 2
    with MemoryPipeline(root=tmp_path / "other") as pipe, pytest.raises(ImportFormatError):
        import_mem0(pipe, [BAD_ROWS["empty user id"]])
    assert seen == ["mem0", "mem0"]
