"""Line handling shared by the USER.md and MEMORY.md parsers.

Both parsers keep every line they do not own verbatim, so they only need to agree on how
text splits into lines, how bullets continue, and what a "Label: " prefix is.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from pipeline.errors import LedgerError
from pipeline.ledgers.field_concepts import same_field

BOM = "\ufeff"
INDENT = "  "  # continuation lines of a multi-line bullet
LABEL_MAX_CHARS = 40
LABEL_MAX_WORDS = 4
_LABEL_PUNCT = set(" -_/.&+#'")


@dataclass
class SplitText:
    lines: list[str]
    newline: str  # "\n" or "\r\n": CRLF files are preserved as CRLF
    final_newline: bool
    had_bom: bool
    normalized: bool  # mixed or lone-CR line endings were rewritten, so render() cannot match the input


def split_text(text: str) -> SplitText:
    had_bom = text.startswith(BOM)
    if had_bom:
        text = text[1:]
    crlf, lf, cr = text.count("\r\n"), text.count("\n"), text.count("\r")
    newline, normalized = "\n", False
    if crlf and crlf == lf == cr:
        newline = "\r\n"
        text = text.replace("\r\n", "\n")
    elif cr:
        normalized = True
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text:
        return SplitText([], newline, False, had_bom, normalized)
    lines = text.split("\n")
    final = lines[-1] == ""
    if final:
        lines.pop()
    return SplitText(lines, newline, final, had_bom, normalized)


def join_text(lines: list[str], newline: str, final_newline: bool) -> str:
    if not lines:
        return ""
    return newline.join(lines) + (newline if final_newline else "")


def is_blank(line: str) -> bool:
    return not line.strip()


def bullet_body(line: str) -> str | None:
    """The text of a top-level bullet ("- x" or "* x"), else None."""
    if line.startswith(("- ", "* ")):
        return line[2:]
    return None


def take_continuation(lines: list[str], start: int) -> int:
    """Index just past the continuation lines (indented by two spaces) that follow lines[start - 1].

    Trailing whitespace-only lines are left out: they separate blocks, they do not belong to one.
    """
    end = start
    while end < len(lines) and lines[end].startswith(INDENT):
        end += 1
    while end > start and is_blank(lines[end - 1]):
        end -= 1
    return end


def bullet_lines(body: str) -> list[str]:
    """A bullet holding `body`; extra lines of a multi-line body are indented under it."""
    first, *rest = body.split("\n")
    return [f"- {first}"] + [INDENT + line for line in rest]


def is_label(text: str) -> bool:
    """A short "Key" / "topic" label: <= 40 chars, <= 4 words, starts with a letter or digit,
    only letters, digits, combining marks, spaces and - _ / . & + # ' (any script)."""
    if not text or len(text) > LABEL_MAX_CHARS or text != text.strip() or "  " in text:
        return False
    if len(text.split(" ")) > LABEL_MAX_WORDS or not text[0].isalnum():
        return False
    return all(ch.isalnum() or ch in _LABEL_PUNCT or unicodedata.category(ch).startswith("M") for ch in text)


def split_label(line: str) -> tuple[str | None, str]:
    """Split "Label: rest" at the first ": " when the prefix is a label and rest is not empty.

    Otherwise (None, line). Either way f"{label}: {rest}" == line, so parsing is lossless.
    """
    cut = line.find(": ")
    if cut <= 0:
        return None, line
    label, rest = line[:cut], line[cut + 2 :]
    if not rest.strip() or not is_label(label):
        return None, line
    return label, rest


def clean_entry_text(text: str, what: str = "content") -> str:
    """Strip an entry and normalise its line endings; refuse empty text."""
    if not isinstance(text, str):
        raise LedgerError(f"{what} must be text")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise LedgerError(f"{what} is empty")
    return text


def norm_key(text: str) -> str:
    return " ".join(text.split()).casefold()


def names_key(words: str, key: str) -> bool:
    """Do the words of a forget request name this USER.md key? "email" names Email, "phone number"
    names Phone: every word of the key is among the request's words (any case, any script). A
    contact field is named by what it is: "email address" names Email (never Address or
    Location), "where I live" names Location (ledgers/field_concepts.py)."""
    same = same_field(words, key)
    if same is False:
        return False
    wanted, have = norm_key(words).split(), norm_key(key).split()
    return (bool(have) and set(have) <= set(wanted)) or bool(same)
