"""`memroute tool` and Hermes import/export: direct edits that go through the same guards,
caps and write path (`Workspace.edit()`) as chat turns."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pipeline import guards
from pipeline.errors import CapExceeded, LedgerError, ToolUsageError
from pipeline.ledgers import clean_entry_text, hermes
from pipeline.ledgers.memory_md import MemoryEntry, MemoryLog
from pipeline.ledgers.user_md import UserProfile, canonical_section, field_from_entry
from pipeline.ops.workspace import Workspace
from pipeline.stages.write import Change, WriteResult
from pipeline.store.files import MEMORY_FILE, USER_FILE
from pipeline.types import USER_SECTIONS

ACTIONS = ("add", "replace", "remove")
TARGETS = ("user", "memory")


def _entry_from_text(content: str) -> MemoryEntry:
    """Parse "[2026-07-30] topic: text" (date optional; today's date when absent)."""
    entry = MemoryEntry.parse(content.strip())
    if entry.date is None:
        entry.date = datetime.now(timezone.utc).date().isoformat()
    return entry


def run_tool(
    ws: Workspace,
    user_id: str,
    action: str,
    target: str,
    *,
    content: str | None = None,
    old_text: str | None = None,
    section: str | None = None,
) -> dict[str, Any]:
    if action not in ACTIONS:
        raise ToolUsageError(f"unknown action {action!r}: choose one of {', '.join(ACTIONS)}")
    if target not in TARGETS:
        raise ToolUsageError(f"unknown target {target!r}: choose one of {', '.join(TARGETS)}")
    if action in ("add", "replace") and not (content and content.strip()):
        raise ToolUsageError(f"--content is required for {action}")
    if action in ("replace", "remove") and not (old_text and old_text.strip()):
        raise ToolUsageError(f"--old-text is required for {action}")
    if section is not None:
        section = _checked_section(section)
    if content is not None:
        verdict = _content_verdict(content, target, ws.guard_policy)
        if not verdict.allowed:
            return {"success": False, "error": f"blocked ({verdict.rule}): {verdict.message}", "target": target}

    limit = ws.user_limit if target == "user" else ws.memory_limit
    name = USER_FILE if target == "user" else MEMORY_FILE
    with ws.edit(user_id, kind="tool") as tx:
        current = tx.current
        if section is not None and target == "user" and canonical_section(section) is None:
            # Headings come from a fixed set, or are the user's own (already in USER.md, written by
            # hand, and scanned like any line on the way to a prompt): a tool call never adds one.
            own = current.profile.section_named(section)
            if own is None:
                raise ToolUsageError(f"unknown --section {section!r}: use one of {', '.join(USER_SECTIONS)} "
                                     "or a section already in USER.md")
            section = own
        refused = current.user_refused if target == "user" else current.memory_refused
        if refused and action in ("replace", "remove"):
            return {"success": False, "error": refused, "target": target}
        model: UserProfile | MemoryLog = current.profile if target == "user" else current.log
        before = model.render()
        entries_before = _entries(model)
        # An add of "Key: value" for a key USER.md has is a replacement: said so, and the old value archived.
        replaced = _replaced_field(model, content) if action == "add" else None
        try:
            old = _apply(model, action, content, old_text, section)
        except CapExceeded as e:
            return e.payload()
        except LedgerError as e:
            return {"success": False, "error": str(e), "current_entries": entries_before, "target": target}
        after = model.render()  # under the cap: the model refused (CapExceeded above) otherwise
        if replaced is not None and after != before:
            action, old = "replace", replaced
        written = WriteResult(profile=current.profile, log=current.log)
        written.changes.append(Change(target, action, None, old, content, "memroute tool", None))
        if old is not None:
            written.archive.append(Change(target, "replaced" if action == "replace" else "removed", None, old, None, f"tool {action}"))
        if after != before:
            tx.stage(written, files={name: after})
    message = {"add": "Entry added.", "replace": "Entry replaced.", "remove": "Entry removed."}[action]
    return {
        "success": True,
        "target": target,
        "usage": f"{len(after):,}/{limit:,}",
        "entry_count": len(_entries(model)),
        "message": message if after != before or action == "remove" else "Already there: nothing changed.",
    }


def _replaced_field(model: UserProfile | MemoryLog, content: str | None) -> str | None:
    """The "Key: value" entry an add of `content` would overwrite (a field with that key and another value)."""
    if not isinstance(model, UserProfile) or not content:
        return None
    try:
        fld = field_from_entry("", clean_entry_text(content))
    except LedgerError:
        return None  # _apply says what is wrong with the content
    existing = model.get(fld.key) if fld.key is not None else None
    if existing is None or existing.value == fld.value:
        return None
    return f"{existing.key}: {existing.value}"


# A section name is a heading in USER.md: one of the five, or one the user wrote there by hand;
# plain words only either way, so it cannot forge structure, hide text (bidi, zero-width) or carry
# markup, and it must pass the guards like any line.
_SECTION_NAME_RE = re.compile(r"[^\W_](?:[\w ]{0,28}[^\W_])?")
_LEADING_DATE_RE = re.compile(r"^\s*\[\d{4}(?:-\d{2}){0,2}\]\s*")


def _checked_section(section: str) -> str:
    known = canonical_section(section)
    if known is not None:
        return known
    verdict = guards.check_text(section)
    if not _SECTION_NAME_RE.fullmatch(section) or not verdict.allowed:
        raise ToolUsageError(
            f"invalid --section {section!r}: use one of {', '.join(USER_SECTIONS)} (or a section already in USER.md)"
        )
    return section


def _content_verdict(content: str, target: str, policy: guards.GuardPolicy) -> guards.Verdict:
    """The guards' verdict on tool content. A MEMORY.md entry's own leading "[YYYY-MM-DD]" (or "[YYYY-MM]",
    "[YYYY]") is the
    tool's format, not a forged entry; a date anywhere else is."""
    checked = _LEADING_DATE_RE.sub("", content, count=1) if target == "memory" else content
    return guards.check_text(checked, turn_text=content, policy=policy)


def _import_verdict(entry: str, dated: bool, policy: guards.GuardPolicy) -> guards.Verdict:
    """An imported Hermes entry is judged whole (its lines joined) and line by line: a role marker
    or heading at the start of a continuation line is only visible per line."""
    text = _LEADING_DATE_RE.sub("", entry, count=1) if dated else entry
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    verdict = guards.check_text(" ".join(lines), turn_text="", policy=policy)
    if not verdict.allowed or len(lines) < 2:
        return verdict
    for line in lines:
        rule = guards.quote_rule(line, policy)
        if rule is not None:
            return guards.Verdict(False, "blocked", rule, f"blocked: a line of the entry breaks {rule}")
    return verdict


def _entries(model: UserProfile | MemoryLog) -> list[str]:
    if isinstance(model, UserProfile):
        return model.entries()
    return model.entry_strings()


def _apply(
    model: UserProfile | MemoryLog, action: str, content: str | None, old_text: str | None, section: str | None
) -> str | None:
    if isinstance(model, UserProfile):
        if action == "add":
            model.add_entry(content or "", section=section)
            return None
        if action == "replace":
            return model.replace_entry(old_text or "", content or "")
        return model.remove_entry(old_text or "")
    if action == "add":
        model.append(_entry_from_text(content or ""))
        return None
    if action == "replace":
        return model.replace(old_text or "", _entry_from_text(content or "")).body()
    return model.remove(old_text or "").body()


def import_hermes(ws: Workspace, source: Path, user_id: str) -> dict[str, Any]:
    """Import a Hermes store (DIR/memories/{USER,MEMORY}.md). What does not fit or is blocked is reported."""
    user_entries, memory_entries = hermes.read_hermes(source)
    blocked: list[dict[str, str]] = []
    safe_user: list[str] = []
    safe_memory: list[str] = []
    for bucket, entries, dated in ((safe_user, user_entries, False), (safe_memory, memory_entries, True)):
        for entry in entries:
            verdict = _import_verdict(entry, dated, ws.guard_policy)
            if verdict.allowed:
                bucket.append(entry)
            else:
                blocked.append({"entry": guards.redact(entry), "rule": verdict.rule or ""})
    with ws.edit(user_id, kind="import") as tx:
        current = tx.current
        if current.user_refused or current.memory_refused:
            raise LedgerError(current.user_refused or current.memory_refused or "")
        profile, user_left = hermes.profile_from_entries(safe_user, limit=ws.user_limit, base=current.profile)
        memory, memory_left = hermes.log_from_entries(safe_memory, limit=ws.memory_limit, base=current.log)
        written = WriteResult(profile=profile, log=memory)
        files = {}
        if profile.render() != current.texts.user:
            files[USER_FILE] = profile.render()
            written.changes.append(Change("user", "import", None, None, f"{len(safe_user) - len(user_left)} entries", "import-hermes"))
        if memory.render() != current.texts.memory:
            files[MEMORY_FILE] = memory.render()
            written.changes.append(Change("memory", "import", None, None, f"{len(safe_memory) - len(memory_left)} entries", "import-hermes"))
        if files:
            tx.stage(written, files=files)
    # Counted against what the files held before: an entry already there is not imported again.
    new_user = set(profile.entries()) - set(current.profile.entries())
    new_memory = set(memory.entry_strings()) - set(current.log.entry_strings())
    return {
        # Blocked entries are refused on purpose (and listed); the import failed only if some did not fit.
        "success": not (user_left or memory_left),
        "imported_user": len(new_user),
        "imported_memory": len(new_memory),
        "did_not_fit": {"user": user_left, "memory": memory_left},
        "blocked": blocked,
        "user_usage": f"{len(profile.render()):,}/{ws.user_limit:,}",
        "memory_usage": f"{len(memory.render()):,}/{ws.memory_limit:,}",
    }


def export_hermes(ws: Workspace, user_id: str, out: Path) -> dict[str, Any]:
    current = ws.load(user_id)
    user_entries = current.profile.entries()
    memory_entries = current.log.entry_strings()
    hermes.write_hermes(out, user_entries, memory_entries)
    return {"success": True, "out": str(out), "user_entries": len(user_entries), "memory_entries": len(memory_entries)}
