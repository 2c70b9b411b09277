"""Tokenizer for preprocessed P4-16 text.

``>>`` is never a single token: the parser joins two adjacent ``>`` into a shift so that
``register<bit<32>>`` closes two type-argument lists (as p4c does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from emulator.p4c.diagnostics import MAX_WIDTH, CompileError, Pos
from emulator.p4c.frontend.preprocess import Preprocessed

KEYWORDS = frozenset(
    [
        "abstract",
        "action",
        "apply",
        "bit",
        "bool",
        "const",
        "control",
        "default",
        "else",
        "entries",
        "enum",
        "error",
        "exit",
        "extern",
        "false",
        "header",
        "header_union",
        "if",
        "in",
        "inout",
        "int",
        "key",
        "list",
        "match_kind",
        "out",
        "package",
        "parser",
        "return",
        "select",
        "state",
        "string",
        "struct",
        "switch",
        "table",
        "transition",
        "true",
        "tuple",
        "type",
        "typedef",
        "value_set",
        "varbit",
        "void",
    ]
)

_PUNCT = [
    "{#}", "&&&", "|+|", "|-|", "..", "++", "<<", "<=", ">=", "==", "!=", "&&", "||",
    "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">", "?", ":", ";", ",", ".",
    "(", ")", "{", "}", "[", "]", "=", "@",
]  # fmt: skip

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+|\n)
  | (?P<int>(?:\d+[ws])?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[\d_]*))
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<punct>"""
    + "|".join(re.escape(p) for p in _PUNCT)
    + r""")
    """,
    re.X,
)


@dataclass(frozen=True)
class Token:
    """One token: kind is 'id', 'kw', 'int', 'str', 'op' or 'eof'."""

    kind: str
    text: str
    pos: Pos
    end_col: int  # column after the token in the preprocessed line (adjacency tests)
    line: int  # preprocessed line

    def is_op(self, text: str) -> bool:
        """True for the punctuation token ``text``."""
        return self.kind == "op" and self.text == text

    def is_kw(self, text: str) -> bool:
        """True for the keyword ``text``."""
        return self.kind == "kw" and self.text == text


def parse_int(text: str) -> tuple[int, int | None, bool]:
    """Parse a P4 integer literal into (value, width or None, signed)."""
    width: int | None = None
    signed = False
    m = re.match(r"(\d+)([ws])(.*)", text)
    if m:
        width, signed, text = int(m.group(1)), m.group(2) == "s", m.group(3)
    t = text.replace("_", "")
    low = t.lower()
    if low.startswith("0x"):
        v = int(t[2:], 16)
    elif low.startswith("0b"):
        v = int(t[2:], 2)
    elif low.startswith("0o"):
        v = int(t[2:], 8)
    elif low.startswith("0d"):
        v = int(t[2:], 10)
    else:
        v = int(t, 10)
    return v, width, signed


def _check_int(text: str, pos: Pos) -> None:
    """Integer literals within the stated limit (MAX_WIDTH bits, width prefix included)."""
    m = re.match(r"(\d+)[ws]", text)
    too_big = f"integer literal is larger than the limit of {MAX_WIDTH} bits"
    if m and (len(m.group(1)) > 5 or int(m.group(1)) > MAX_WIDTH):
        raise CompileError(pos, f"integer width {m.group(1)} is above the limit of {MAX_WIDTH}")
    if len(text) > MAX_WIDTH + 8:  # more digits than even binary needs
        raise CompileError(pos, too_big)
    try:
        value = parse_int(text)[0]
    except ValueError:
        raise CompileError(pos, f"malformed integer literal {text!r}") from None
    if value.bit_length() > MAX_WIDTH:
        raise CompileError(pos, too_big)


def tokenize(pre: Preprocessed) -> list[Token]:
    """Split preprocessed text into tokens with original source positions."""
    toks: list[Token] = []
    text = pre.text
    i, line, line_start = 0, 1, 0
    n = len(text)
    while i < n:
        m = _TOKEN_RE.match(text, i)
        if not m:
            col = i - line_start + 1
            raise CompileError(pre.pos(line, col), f"unexpected character {text[i]!r}")
        kind = m.lastgroup
        s = m.group(0)
        col = i - line_start + 1
        if kind == "ws":
            if s == "\n":
                line += 1
                line_start = m.end()
        else:
            if kind == "int":
                _check_int(s, pre.pos(line, col))
            elif kind == "id" and s in KEYWORDS:
                kind = "kw"
            elif kind == "punct":
                kind = "op"
            toks.append(Token(kind or "op", s, pre.pos(line, col), col + len(s), line))
        i = m.end()
    toks.append(Token("eof", "", pre.pos(line, i - line_start + 1), 0, line))
    return toks
