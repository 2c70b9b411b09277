"""P4-16 statements, parser states, keysets and table properties (a parser mixin)."""

from __future__ import annotations

from typing import Any

from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend.expr_parser import VALUE_TYPE_KW, ExprParser
from emulator.p4c.frontend.lexer import parse_int


class StmtParser(ExprParser):
    """Statements, blocks, parser states/transitions and tables.

    ``typed_decl`` and ``const_decl`` come from the declaration parser subclass.
    """

    typed_decl: Any
    const_decl: Any

    # -------------------------------------------------------------- annotations
    def annotations(self) -> A.Annotations:
        out = []
        while self.tok.is_op("@"):
            self.advance()
            name = self.tok.text
            self.advance()
            args: list[object] = []
            if self.tok.is_op("(") or self.tok.is_op("["):
                close = ")" if self.tok.is_op("(") else "]"
                opener = self.tok.text
                self.advance()
                depth = 1
                while True:
                    t = self.tok
                    if t.kind == "eof":
                        raise self.unexpected(f"'{close}'")
                    if t.is_op(opener):
                        depth += 1
                    elif t.is_op(close):
                        depth -= 1
                        if depth == 0:
                            self.advance()
                            break
                    if t.kind == "str":
                        args.append(t.text[1:-1])
                    elif t.kind == "int":
                        args.append(parse_int(t.text)[0])
                    elif t.kind in ("id", "kw"):
                        args.append(t.text)
                    self.advance()
            out.append((name, tuple(args)))
        return tuple(out)

    def state_decl(self, annos: A.Annotations) -> A.StateDecl:
        t = self.expect_kw("state")
        name = self.ident("a state name")
        self.expect_op("{")
        stmts: list[A.Stmt] = []
        trans = None
        while not self.tok.is_op("}"):
            if self.tok.is_kw("transition"):
                trans = self.transition()
                break
            stmts.append(self.statement())
        self.expect_op("}")
        return A.StateDecl(t.pos, name, tuple(stmts), trans, annos)

    def transition(self) -> A.Transition:
        t = self.expect_kw("transition")
        if self.accept_kw("select"):
            self.expect_op("(")
            keys = [self.parse_expr()]
            while self.accept_op(","):
                keys.append(self.parse_expr())
            self.expect_op(")")
            self.expect_op("{")
            cases = []
            while not self.tok.is_op("}"):
                ct = self.tok
                ks = self.keyset()
                self.expect_op(":")
                st = self.ident("a state name")
                self.expect_op(";")
                cases.append(A.SelectCase(ct.pos, ks, st))
            self.expect_op("}")
            return A.Transition(t.pos, tuple(keys), tuple(cases))
        st = self.ident("a state name")
        self.expect_op(";")
        return A.Transition(t.pos, None, (), st)

    def keyset_elem(self) -> A.Expr:
        t = self.tok
        if t.is_kw("default"):
            self.advance()
            return A.Default(t.pos)
        if t.kind == "id" and t.text == "_":
            self.advance()
            return A.DontCare(t.pos)
        e = self.parse_expr()
        if self.tok.is_op("&&&") or self.tok.is_op(".."):
            op = self.advance()
            return A.Binary(op.pos, op.text, e, self.parse_expr())
        return e

    def keyset(self) -> A.Expr:
        t = self.tok
        kind = self._paren_group() if t.is_op("(") else ""
        if kind == "tuple":
            self.advance()
            items = [self.keyset_elem()]
            while self.accept_op(","):
                items.append(self.keyset_elem())
            self.expect_op(")")
            return A.ListExpr(t.pos, tuple(items))
        if kind == "keyset":  # one key in parentheses: (0x20 &&& 0xf0), as p4c allows
            self.advance()
            e = self.keyset_elem()
            self.expect_op(")")
            return e
        return self.keyset_elem()

    def _paren_group(self) -> str:
        """What the parenthesised group here is: "tuple" (a comma in it), "keyset" (a mask
        or range in it) or "" (an expression)."""
        depth, k = 0, 0
        found = ""
        while True:
            t = self.peek(k)
            if t.kind == "eof":
                return ""
            if t.kind == "op" and t.text in ("(", "[", "{"):
                depth += 1
            elif t.kind == "op" and t.text in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    return found
            elif depth == 1 and t.is_op(","):
                return "tuple"
            elif depth == 1 and (t.is_op("&&&") or t.is_op("..")):
                found = "keyset"
            k += 1

    # -------------------------------------------------------------- tables
    def table_decl(self, annos: A.Annotations) -> A.TableDecl:
        t = self.expect_kw("table")
        name = self.ident("a table name")
        self.expect_op("{")
        props = []
        while not self.tok.is_op("}"):
            self.annotations()
            pt = self.tok
            const = bool(self.accept_kw("const"))
            pname = self.ident("a table property")
            self.expect_op("=")
            value: object
            if pname == "key":
                value = self._key_list()
            elif pname == "actions":
                value = self._action_list()
            elif pname == "entries":
                value = self._entries()
            elif pname == "default_action":
                value = self.action_ref(self.annotations())
                self.expect_op(";")
            else:
                value = self.parse_expr()
                self.expect_op(";")
            props.append(A.TableProp(pt.pos, pname, const, value))
        self.expect_op("}")
        return A.TableDecl(t.pos, name, tuple(props), annos)

    def _key_list(self) -> tuple[A.KeyElement, ...]:
        self.expect_op("{")
        keys = []
        while not self.tok.is_op("}"):
            kt = self.tok
            e = self.parse_expr()
            self.expect_op(":")
            mk = self.ident("a match kind")
            ka = self.annotations()
            self.expect_op(";")
            keys.append(A.KeyElement(kt.pos, e, mk, ka))
        self.expect_op("}")
        return tuple(keys)

    def action_ref(self, annos: A.Annotations) -> A.ActionRef:
        t = self.tok
        e = self._postfix_name()
        args = self.parse_args() if self.tok.is_op("(") else ()
        return A.ActionRef(t.pos, e, args, annos)

    def _postfix_name(self) -> A.Expr:
        t = self.tok
        top = bool(self.accept_op("."))
        e: A.Expr = A.Name(t.pos, self.ident("an action name"), top)
        while self.tok.is_op("."):
            mt = self.advance()
            e = A.Member(mt.pos, e, self.ident())
        return e

    def _action_list(self) -> tuple[A.ActionRef, ...]:
        self.expect_op("{")
        out = []
        while not self.tok.is_op("}"):
            a = self.annotations()
            out.append(self.action_ref(a))
            self.expect_op(";")
        self.expect_op("}")
        return tuple(out)

    def _entries(self) -> tuple[A.Entry, ...]:
        self.expect_op("{")
        out = []
        while not self.tok.is_op("}"):
            annos = self.annotations()
            et = self.tok
            prio = None
            if self.tok.text == "priority" and self.peek().is_op("="):
                self.advance()
                self.advance()
                prio = self.parse_expr()
                self.expect_op(":")
            ks = self.keyset()
            keys = ks.items if isinstance(ks, A.ListExpr) else (ks,)
            self.expect_op(":")
            act = self.action_ref(())
            annos += self.annotations()  # `: action(...) @priority(N);`
            self.expect_op(";")
            out.append(A.Entry(et.pos, tuple(keys), act, prio, annos))
        self.expect_op("}")
        return tuple(out)

    # -------------------------------------------------------------- statements
    def block(self) -> A.Block:
        t = self.expect_op("{")
        stmts = []
        while not self.tok.is_op("}"):
            if self.tok.kind == "eof":
                raise self.unexpected("'}'")
            stmts.append(self.statement())
        self.expect_op("}")
        return A.Block(t.pos, tuple(stmts))

    def statement(self) -> A.Stmt:
        with self.nested(self.tok):
            return self._statement()

    def _statement(self) -> A.Stmt:
        annos = self.annotations()
        t = self.tok
        if t.is_op("{"):
            return self.block()
        if t.is_op(";"):
            self.advance()
            return A.Empty(t.pos)
        if t.kind == "kw":
            if t.text == "if":
                self.advance()
                self.expect_op("(")
                cond = self.parse_expr()
                self.expect_op(")")
                then = self.statement()
                other = self.statement() if self.accept_kw("else") else None
                return A.If(t.pos, cond, then, other)
            if t.text == "switch":
                return self.switch_stmt()
            if t.text == "exit":
                self.advance()
                self.expect_op(";")
                return A.Exit(t.pos)
            if t.text == "return":
                self.advance()
                value = None if self.tok.is_op(";") else self.parse_expr()
                self.expect_op(";")
                return A.Return(t.pos, value)
            if t.text == "const":
                return self.const_decl(annos)
            if t.text in VALUE_TYPE_KW and not self.peek().is_op("."):
                return self.typed_decl(annos)
        if t.kind == "id" and self.is_type_name(t.text) and not self.peek().is_op("."):
            return self.typed_decl(annos)
        e = self.parse_expr()
        if self.tok.is_op("="):
            self.advance()
            rhs = self.parse_expr()
            self.expect_op(";")
            return A.Assign(t.pos, e, rhs)
        self.expect_op(";")
        if not isinstance(e, A.Call):
            raise self.fail("syntax error: expression used as a statement", t)
        return A.CallStmt(t.pos, e)

    def switch_stmt(self) -> A.Switch:
        t = self.expect_kw("switch")
        self.expect_op("(")
        e = self.parse_expr()
        self.expect_op(")")
        self.expect_op("{")
        cases = []
        while not self.tok.is_op("}"):
            ct = self.tok
            label: A.Expr
            if self.accept_kw("default"):
                label = A.Default(ct.pos)
            else:
                label = self.parse_expr()
            self.expect_op(":")
            body = self.block() if self.tok.is_op("{") else None
            cases.append(A.SwitchCase(ct.pos, label, body))
        self.expect_op("}")
        return A.Switch(t.pos, e, tuple(cases))
