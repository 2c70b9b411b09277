"""P4-16 declarations and statements: tokens -> :mod:`emulator.p4c.frontend.ast`."""

from __future__ import annotations

from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend.lexer import tokenize
from emulator.p4c.frontend.preprocess import Preprocessed
from emulator.p4c.frontend.stmt_parser import StmtParser


def parse_program(pre: Preprocessed) -> A.Program:
    """Parse preprocessed text into a Program."""
    return Parser(tokenize(pre)).program()


class Parser(StmtParser):
    """Top-level declarations, parser and control blocks."""

    def program(self) -> A.Program:
        decls: list[A.Stmt] = []
        while self.tok.kind != "eof":
            if self.accept_op(";"):
                continue
            decls.append(self.declaration())
        return A.Program(tuple(decls))

    # -------------------------------------------------------------- declarations
    def declaration(self) -> A.Stmt:
        annos = self.annotations()
        t = self.tok
        if t.kind == "kw":
            kw = t.text
            if kw in ("header", "struct", "header_union"):
                return self.struct_decl(annos)
            if kw == "enum":
                return self.enum_decl(annos)
            if kw == "error" and self.peek().is_op("{"):
                self.advance()
                return A.ErrorDecl(t.pos, self.name_list())
            if kw == "match_kind":
                self.advance()
                return A.MatchKindDecl(t.pos, self.name_list())
            if kw in ("typedef", "type"):
                self.advance()
                ty = self.parse_type()
                name = self.ident()
                self.expect_op(";")
                self.type_names.add(name)
                return A.TypedefDecl(t.pos, name, ty, kw == "type")
            if kw == "extern":
                return self.extern_decl(annos)
            if kw == "parser":
                return self.parser_decl(annos)
            if kw == "control":
                return self.control_decl(annos)
            if kw == "package":
                self.advance()
                name = self.ident()
                self.type_names.add(name)
                tps = self.opt_type_params()
                params = self.params()
                self.expect_op(";")
                return A.ProtoDecl(t.pos, "package", name, tps, params)
            if kw == "action":
                return self.action_decl(annos)
            if kw == "const":
                return self.const_decl(annos)
        return self.typed_decl(annos)

    def name_list(self) -> tuple[str, ...]:
        self.expect_op("{")
        names = []
        while not self.tok.is_op("}"):
            names.append(self.ident())
            if not self.accept_op(","):
                break
        self.expect_op("}")
        return tuple(names)

    def struct_decl(self, annos: A.Annotations) -> A.StructDecl:
        t = self.advance()
        name = self.ident()
        self.type_names.add(name)
        self.opt_type_params()
        self.expect_op("{")
        fields = []
        while not self.tok.is_op("}"):
            fa = self.annotations()
            ft = self.tok
            ty = self.parse_type()
            fname = self.ident("a field name")
            self.expect_op(";")
            fields.append(A.FieldDecl(ft.pos, ty, fname, fa))
        self.expect_op("}")
        return A.StructDecl(t.pos, t.text, name, tuple(fields), annos)

    def enum_decl(self, annos: A.Annotations) -> A.EnumDecl:
        t = self.advance()
        underlying = None
        if self.tok.is_kw("bit") or self.tok.is_kw("int"):
            underlying = self.parse_type()
        name = self.ident()
        self.type_names.add(name)
        self.expect_op("{")
        members = []
        while not self.tok.is_op("}"):
            self.annotations()
            m = self.ident()
            val = self.parse_expr() if self.accept_op("=") else None
            members.append((m, val))
            if not self.accept_op(","):
                break
        self.expect_op("}")
        return A.EnumDecl(t.pos, name, tuple(members), underlying, annos)

    def opt_type_params(self) -> tuple[str, ...]:
        if not self.tok.is_op("<"):
            return ()
        self.advance()
        names = [self.ident()]
        while self.accept_op(","):
            names.append(self.ident())
        self.expect_op(">")
        if self.type_scopes:
            self.type_scopes[-1].update(names)
        return tuple(names)

    def params(self) -> tuple[A.Param, ...]:
        self.expect_op("(")
        out: list[A.Param] = []
        while not self.tok.is_op(")"):
            annos = self.annotations()
            t = self.tok
            direction = ""
            if t.kind == "kw" and t.text in ("in", "out", "inout"):
                direction = t.text
                self.advance()
            ty = self.parse_type()
            name = self.ident("a parameter name")
            default = self.parse_expr() if self.accept_op("=") else None
            out.append(A.Param(t.pos, direction, ty, name, default, annos))
            if not self.accept_op(","):
                break
        self.expect_op(")")
        return tuple(out)

    def extern_decl(self, annos: A.Annotations) -> A.ExternDecl:
        t = self.advance()
        self.type_scopes.append(set())
        try:
            # extern function: `extern T f<...>(...)`; extern object: `extern Name<...> { ... }`
            if (
                self.tok.kind == "id"
                and (self.peek().is_op("{") or self.peek().is_op("<"))
                and not self._is_function_after_type()
            ):
                name = self.ident()
                self.type_names.add(name)
                tps = self.opt_type_params()
                self.expect_op("{")
                methods = []
                while not self.tok.is_op("}"):
                    methods.append(self.method_proto(name))
                self.expect_op("}")
                return A.ExternDecl(t.pos, name, tps, tuple(methods), None, annos)
            m = self.method_proto(None)
            return A.ExternDecl(t.pos, m.name, m.type_params, (), m, annos)
        finally:
            self.type_scopes.pop()

    def _generic_return(self) -> bool:
        """``T f<..., T, ...>(``: a function whose return type is one of its type parameters."""
        t, k = self.tok, 3
        if not (t.kind == "id" and self.peek().kind == "id" and self.peek(2).is_op("<")):
            return False
        names = []
        while self.peek(k).kind == "id":  # the list `A, B, ... >` of type parameters
            names.append(self.peek(k).text)
            if self.peek(k + 1).is_op(">"):
                return t.text in names and self.peek(k + 2).is_op("(")
            if not self.peek(k + 1).is_op(","):
                break
            k += 2
        return False

    def _is_function_after_type(self) -> bool:
        """``extern Name<...> f(...)`` (generic return type) vs ``extern Name<...> {``."""
        if not self.peek().is_op("<"):
            return False
        depth, k = 0, 1
        while True:
            t = self.peek(k)
            if t.kind == "eof":
                return False
            if t.is_op("<"):
                depth += 1
            elif t.is_op(">"):
                depth -= 1
                if depth == 0:
                    return not self.peek(k + 1).is_op("{")
            k += 1

    def method_proto(self, ctor_name: str | None) -> A.MethodProto:
        annos = self.annotations()
        t = self.tok
        if self.accept_kw("abstract"):
            t = self.tok
        if (
            ctor_name is not None
            and t.kind == "id"
            and t.text == ctor_name
            and self.peek().is_op("(")
        ):
            self.advance()
            params = self.params()
            self.expect_op(";")
            return A.MethodProto(t.pos, ctor_name, (), params, None, annos)
        # type params may appear before the return type is known: register them first
        save = self.i
        ret = None
        if not (
            self.tok.kind == "id"
            and self.peek().is_op("<")
            and not self.is_type_name(self.tok.text)
        ):
            ret = self.parse_type()
        name_tok = self.tok
        name = self.ident("a method name")
        tps = self.opt_type_params()
        if ret is None:
            self.i = save
            ret = self.parse_type()
            self.ident()
            self.opt_type_params()
        params = self.params()
        self.expect_op(";")
        return A.MethodProto(name_tok.pos, name, tps, params, ret, annos)

    def _generic_header(self) -> tuple[str, tuple[str, ...], tuple[A.Param, ...]]:
        name = self.ident()
        self.type_names.add(name)
        tps = self.opt_type_params()
        params = self.params()
        return name, tps, params

    def parser_decl(self, annos: A.Annotations) -> A.Stmt:
        t = self.advance()
        self.type_scopes.append(set())
        try:
            name, tps, params = self._generic_header()
            if self.accept_op(";"):
                return A.ProtoDecl(t.pos, "parser", name, tps, params)
            ctor = self.params() if self.tok.is_op("(") else ()
            self.expect_op("{")
            locals_: list[A.Stmt] = []
            states: list[A.StateDecl] = []
            while not self.tok.is_op("}"):
                sa = self.annotations()
                if self.tok.is_kw("state"):
                    states.append(self.state_decl(sa))
                else:
                    locals_.append(self.local_decl(sa))
            self.expect_op("}")
            return A.ParserDecl(
                t.pos, name, tps, params, ctor, tuple(locals_), tuple(states), annos
            )
        finally:
            self.type_scopes.pop()

    def control_decl(self, annos: A.Annotations) -> A.Stmt:
        t = self.advance()
        self.type_scopes.append(set())
        try:
            name, tps, params = self._generic_header()
            if self.accept_op(";"):
                return A.ProtoDecl(t.pos, "control", name, tps, params)
            ctor = self.params() if self.tok.is_op("(") else ()
            self.expect_op("{")
            locals_: list[A.Stmt] = []
            while not self.tok.is_kw("apply"):
                if self.tok.kind == "eof" or self.tok.is_op("}"):
                    raise self.unexpected("'apply'")
                locals_.append(self.local_decl(self.annotations()))
            self.expect_kw("apply")
            body = self.block()
            self.expect_op("}")
            return A.ControlDecl(t.pos, name, tps, params, ctor, tuple(locals_), body, annos)
        finally:
            self.type_scopes.pop()

    def local_decl(self, annos: A.Annotations) -> A.Stmt:
        t = self.tok
        if t.is_kw("action"):
            return self.action_decl(annos)
        if t.is_kw("table"):
            return self.table_decl(annos)
        if t.is_kw("const"):
            return self.const_decl(annos)
        if t.is_kw("value_set"):
            self.advance()
            self.expect_op("<")
            ty = self.parse_type()
            self.expect_op(">")
            self.expect_op("(")
            size = self.parse_expr()
            self.expect_op(")")
            name = self.ident()
            self.expect_op(";")
            return A.ValueSetDecl(t.pos, ty, size, name)
        return self.typed_decl(annos)

    def action_decl(self, annos: A.Annotations) -> A.ActionDecl:
        t = self.expect_kw("action")
        name = self.ident("an action name")
        params = self.params()
        return A.ActionDecl(t.pos, name, params, self.block(), annos)

    def const_decl(self, annos: A.Annotations) -> A.ConstDecl:
        t = self.expect_kw("const")
        ty = self.parse_type()
        name = self.ident()
        self.expect_op("=")
        value = self.parse_expr()
        self.expect_op(";")
        return A.ConstDecl(t.pos, ty, name, value, annos)

    def typed_decl(self, annos: A.Annotations) -> A.Stmt:
        """``T name;``, ``T name = e;``, ``T(args) name;`` or a function ``T name(...) {}``."""
        t = self.tok
        generic = self._generic_return()
        if not (generic or self.starts_type()):
            raise self.unexpected("a declaration")
        if generic:  # T f<T>(...): the return type is a type parameter declared after it
            self.advance()
            ty = A.TypeRef(t.pos, "name", t.text)
        else:
            ty = self.parse_type()
        if self.tok.is_op("("):
            args = self.parse_args()
            name = self.ident("an instance name")
            self.expect_op(";")
            return A.Instance(t.pos, ty, args, name, annos)
        name = self.ident("a name")
        if self.tok.is_op("(") or self.tok.is_op("<"):
            self.type_scopes.append(set())
            try:
                tps = self.opt_type_params()
                params = self.params()
                return A.FunctionDecl(t.pos, name, ty, params, self.block(), annos, tps)
            finally:
                self.type_scopes.pop()
        init = self.parse_expr() if self.accept_op("=") else None
        self.expect_op(";")
        return A.VarDecl(t.pos, ty, name, init, annos)
