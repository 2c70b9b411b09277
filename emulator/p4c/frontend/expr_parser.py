"""Recursive-descent parsing of P4-16 types and expressions (precedence climbing).

P4's ``<``/``>`` ambiguity is solved as in p4c: names known to be types open a type
argument list with ``<``; everywhere else ``<`` is less-than.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from emulator.p4c.diagnostics import MAX_NESTING, CompileError
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend.lexer import Token, parse_int

BUILTIN_TYPE_KW = ("bit", "int", "varbit", "bool", "error", "string", "void", "tuple")
#: the built-in types a value can have: what may start a cast or a typed local declaration
VALUE_TYPE_KW = tuple(k for k in BUILTIN_TYPE_KW if k != "void")

# binary operator precedence (higher binds tighter), P4-16 spec order
_BINARY = {
    "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4,
    "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8,
    "++": 9, "+": 9, "-": 9, "|+|": 9, "|-|": 9, "*": 10, "/": 10, "%": 10,
}  # fmt: skip


class ExprParser:
    """Token cursor plus type and expression grammar."""

    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.i = 0
        self.type_names: set[str] = {"packet_in", "packet_out"}
        self.type_scopes: list[set[str]] = []
        self.depth = 0  # nesting level, against MAX_NESTING

    @contextlib.contextmanager
    def nested(self, tok: Token, levels: int = 1) -> Iterator[None]:
        """One nesting level deeper while inside; deeper than MAX_NESTING is an error at ``tok``."""
        self.depth += levels
        try:
            if self.depth > MAX_NESTING:
                raise CompileError(tok.pos, f"nested deeper than the limit of {MAX_NESTING} levels")
            yield
        finally:
            self.depth -= levels

    # -------------------------------------------------------------- cursor helpers
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def advance(self) -> Token:
        t = self.toks[self.i]
        if self.i < len(self.toks) - 1:
            self.i += 1
        return t

    def fail(self, msg: str, tok: Token | None = None) -> CompileError:
        t = tok or self.tok
        return CompileError(t.pos, msg)

    def unexpected(self, what: str) -> CompileError:
        t = self.tok
        shown = "end of file" if t.kind == "eof" else repr(t.text)
        return self.fail(f"syntax error: expected {what}, found {shown}")

    def accept_op(self, text: str) -> Token | None:
        if self.tok.is_op(text):
            return self.advance()
        return None

    def expect_op(self, text: str) -> Token:
        if not self.tok.is_op(text):
            raise self.unexpected(f"'{text}'")
        return self.advance()

    def accept_kw(self, text: str) -> Token | None:
        if self.tok.is_kw(text):
            return self.advance()
        return None

    def expect_kw(self, text: str) -> Token:
        if not self.tok.is_kw(text):
            raise self.unexpected(f"'{text}'")
        return self.advance()

    def ident(self, what: str = "an identifier") -> str:
        t = self.tok
        # a few keywords are also usable as names (p4c's nonTypeName)
        if t.kind == "id" or (
            t.kind == "kw"
            and t.text
            in ("apply", "key", "actions", "state", "type", "entries", "priority", "list")
        ):
            self.advance()
            return t.text
        raise self.unexpected(what)

    def is_type_name(self, name: str) -> bool:
        return name in self.type_names or any(name in s for s in self.type_scopes)

    def at_shift_right(self) -> bool:
        """Two adjacent '>' tokens form a right shift."""
        t, n = self.tok, self.peek()
        return t.is_op(">") and n.is_op(">") and n.line == t.line and n.pos.col == t.end_col

    # -------------------------------------------------------------- types
    def starts_type(self) -> bool:
        t = self.tok
        if t.kind == "kw" and t.text in BUILTIN_TYPE_KW:
            return True
        if t.kind == "op" and t.text == ".":
            return self.peek().kind == "id" and self.is_type_name(self.peek().text)
        return t.kind == "id" and self.is_type_name(t.text)

    def parse_type(self) -> A.TypeRef:
        with self.nested(self.tok):
            return self._parse_type()

    def _parse_type(self) -> A.TypeRef:
        t = self.tok
        base = self._parse_base_type()
        while self.tok.is_op("["):
            self.advance()
            size = self.parse_expr()
            self.expect_op("]")
            base = A.TypeRef(t.pos, "stack", args=(base,), size=size)
        return base

    def _close_angle(self) -> None:
        self.expect_op(">")

    def _parse_base_type(self) -> A.TypeRef:
        t = self.tok
        if t.kind == "kw":
            if t.text in ("bit", "int", "varbit"):
                self.advance()
                if self.accept_op("<"):
                    if self.tok.kind == "int":
                        tk = self.advance()
                        width: A.Expr = A.IntLit(tk.pos, parse_int(tk.text)[0])
                    else:
                        self.expect_op("(")
                        width = self.parse_expr()
                        self.expect_op(")")
                    self._close_angle()
                elif t.text == "bit":
                    width = A.IntLit(t.pos, 1)
                elif t.text == "int":
                    return A.TypeRef(t.pos, "infint")
                else:
                    raise self.unexpected("'<'")
                return A.TypeRef(t.pos, t.text, width=width)
            if t.text in ("bool", "error", "string", "void"):
                self.advance()
                return A.TypeRef(t.pos, t.text)
            if t.text in ("tuple", "list"):
                self.advance()
                args = self.parse_type_args()
                return A.TypeRef(t.pos, "tuple", args=args)
        if t.is_op("_"):
            self.advance()
            return A.TypeRef(t.pos, "dontcare")
        if t.kind == "id" and t.text == "_":
            self.advance()
            return A.TypeRef(t.pos, "dontcare")
        self.accept_op(".")
        name = self.ident("a type")
        args: tuple[A.TypeRef, ...] = ()  # type: ignore[no-redef]
        if self.tok.is_op("<"):
            args = self.parse_type_args()
        return A.TypeRef(t.pos, "name", name=name, args=args)

    def parse_type_args(self) -> tuple[A.TypeRef, ...]:
        self.expect_op("<")
        args = [self.parse_type()]
        while self.accept_op(","):
            args.append(self.parse_type())
        self._close_angle()
        return tuple(args)

    # -------------------------------------------------------------- expressions
    def parse_expr(self) -> A.Expr:
        return self._ternary()

    def _ternary(self) -> A.Expr:
        """``c ? a : b``. As in p4c's grammar (``?`` and ``:`` non-associative, ``:``
        binding tighter), the else branch holds no unparenthesised ``?:``, and a ``?``
        after it takes the whole conditional as its condition: ``c1 ? a : c2 ? b : d`` is
        ``(c1 ? a : c2) ? b : d`` (then usually a type error, as on p4c)."""
        cond = self._binary(1)
        while self.tok.is_op("?"):
            self.advance()
            a = self.parse_expr()
            self.expect_op(":")
            b = self._binary(1)
            cond = A.Ternary(cond.pos, cond, a, b)
        return cond

    def _binop_here(self) -> str | None:
        t = self.tok
        if t.kind != "op":
            return None
        if t.text == ">" and self.at_shift_right():
            return ">>"
        return t.text if t.text in _BINARY else None

    def _binary(self, min_prec: int) -> A.Expr:
        left = self._unary()
        chained = 0  # a chain a+b+c+... nests its left operands: each link is a level
        while True:
            op = self._binop_here()
            if op is None or _BINARY[op] < min_prec:
                return left
            chained += 1
            with self.nested(self.tok, chained):
                self.advance()
                if op == ">>":
                    self.advance()
                right = self._binary(_BINARY[op] + 1)
            left = A.Binary(left.pos, op, left, right)

    def _unary(self) -> A.Expr:
        with self.nested(self.tok):
            return self._unary_here()

    def _unary_here(self) -> A.Expr:
        t = self.tok
        if t.kind == "op" and t.text in ("!", "~", "-", "+"):
            self.advance()
            e = self._unary()
            return e if t.text == "+" else A.Unary(t.pos, t.text, e)
        if t.is_op("(") and self._looks_like_cast():
            self.advance()
            ty = self.parse_type()
            self.expect_op(")")
            return A.Cast(t.pos, ty, self._unary())
        return self._postfix(self._primary())

    def _looks_like_cast(self) -> bool:
        n = self.peek()
        if n.kind == "kw" and n.text in VALUE_TYPE_KW:
            return True
        if n.kind == "id" and self.is_type_name(n.text):
            after = self.peek(2)
            return after.is_op(")") or after.is_op("<")
        return False

    def _primary(self) -> A.Expr:
        t = self.tok
        if t.kind == "int":
            self.advance()
            v, w, s = parse_int(t.text)
            digits = t.text.lower().split("w")[-1].split("s")[-1]
            base = {"0x": 16, "0o": 8, "0b": 2}.get(digits[:2], 10)
            return A.IntLit(t.pos, v, w, s, base)
        if t.kind == "str":
            self.advance()
            return A.StrLit(t.pos, t.text[1:-1])
        if t.kind == "kw":
            if t.text in ("true", "false"):
                self.advance()
                return A.BoolLit(t.pos, t.text == "true")
            if t.text == "default":
                self.advance()
                return A.Default(t.pos)
            if t.text == "error":
                self.advance()
                return A.Name(t.pos, "error")
            if t.text in ("bit", "int", "varbit", "bool", "tuple"):
                return A.TypeExpr(t.pos, self.parse_type())
            if t.text in (
                "apply",
                "key",
                "actions",
                "state",
                "type",
                "entries",
                "priority",
                "list",
            ):
                self.advance()
                return A.Name(t.pos, t.text)
        if t.kind == "id":
            self.advance()
            if t.text == "_":
                return A.DontCare(t.pos)
            return A.Name(t.pos, t.text)
        if t.is_op("."):
            self.advance()
            return A.Name(t.pos, self.ident(), top=True)
        if t.is_op("("):
            self.advance()
            e = self.parse_expr()
            self.expect_op(")")
            return e
        if t.is_op("{"):
            return self._brace_expr()
        if t.is_op("{#}"):
            self.advance()
            return A.InvalidHeader(t.pos)
        raise self.unexpected("an expression")

    def _dots(self) -> bool:
        """Take ``...`` (lexed as ``..`` then ``.``, adjacent) if it comes next."""
        t, n = self.tok, self.peek()
        if t.is_op("..") and n.is_op(".") and n.line == t.line and n.pos.col == t.end_col:
            self.advance()
            self.advance()
            return True
        return False

    def _brace_expr(self) -> A.Expr:
        t = self.expect_op("{")
        if self.accept_op("}"):
            return A.ListExpr(t.pos, ())
        if self._dots():
            self.expect_op("}")
            return A.StructExpr(t.pos, (), rest=True)
        # struct-valued `{ a = 1, b = 2 }` (`, ...`: the rest by default) or list `{ a, b }`
        if (self.tok.kind == "id" or self.tok.kind == "kw") and self.peek().is_op("="):
            fields, rest = [], False
            while True:
                name = self.ident()
                self.expect_op("=")
                fields.append((name, self.parse_expr()))
                if not self.accept_op(","):
                    break
                if rest := self._dots():
                    break
                if self.tok.is_op("}"):
                    break
            self.expect_op("}")
            return A.StructExpr(t.pos, tuple(fields), rest)
        items = [self.parse_expr()]
        while self.accept_op(","):
            if self.tok.is_op("}"):
                break
            items.append(self.parse_expr())
        self.expect_op("}")
        return A.ListExpr(t.pos, tuple(items))

    def _postfix(self, e: A.Expr) -> A.Expr:
        while True:
            t = self.tok
            if t.is_op("."):
                self.advance()
                e = A.Member(e.pos, e, self.ident("a member name"))
            elif t.is_op("["):
                self.advance()
                a = self.parse_expr()
                if self.accept_op(":"):
                    b = self.parse_expr()
                    self.expect_op("]")
                    e = A.Slice(e.pos, e, a, b)
                else:
                    self.expect_op("]")
                    e = A.Index(e.pos, e, a)
            elif t.is_op("(") or (t.is_op("<") and self._type_args_follow(e)):
                targs: tuple[A.TypeRef, ...] = ()
                if t.is_op("<"):
                    targs = self.parse_type_args()
                args = self.parse_args()
                e = A.Call(e.pos, e, targs, args)
            else:
                return e

    def _type_args_follow(self, e: A.Expr) -> bool:
        """After ``f`` or ``x.m``: is ``<`` the start of type arguments?"""
        if isinstance(e, A.Name) and self.is_type_name(e.name):
            return True
        if not isinstance(e, (A.Member, A.Name)):
            return False
        n = self.peek()
        if n.kind == "kw" and n.text in BUILTIN_TYPE_KW:
            return True
        if n.kind == "id" and self.is_type_name(n.text):
            after = self.peek(2)
            return after.is_op(">") or after.is_op(",") or after.is_op("<")
        return False

    def parse_args(self) -> tuple[A.Arg, ...]:
        self.expect_op("(")
        args: list[A.Arg] = []
        if self.accept_op(")"):
            return ()
        while True:
            name = None
            if (
                self.tok.kind in ("id", "kw")
                and self.peek().is_op("=")
                and not self.peek(2).is_op("=")
            ):
                name = self.tok.text
                self.advance()
                self.advance()
            args.append(A.Arg(name, self.parse_expr()))
            if not self.accept_op(","):
                break
        self.expect_op(")")
        return tuple(args)
