"""The compiler driver: preprocess -> parse -> declare -> lower each v1model block -> JSON.

PROG.p4 ─preprocess─► text+line map ─lexer/parser─► AST ─declare─► Env
    ─► parser / verify / ingress / egress / compute / deparser lowering ─► BMv2 JSON dict
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from emulator.p4c.arch.v1model import V1MODEL
from emulator.p4c.arch.v1model.checksums import lower_checksum_control
from emulator.p4c.backend.bmv2_json import assemble
from emulator.p4c.backend.p4info import p4info_text
from emulator.p4c.diagnostics import CompileError, Pos, end_of, read_source
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.decls import declare, resolve_type
from emulator.p4c.frontend.env import Env, Scope
from emulator.p4c.frontend.preprocess import preprocess
from emulator.p4c.frontend.program_parser import parse_program
from emulator.p4c.frontend.shadowing import check_shadowing
from emulator.p4c.frontend.values import ObjRef, StructRef, Value
from emulator.p4c.frontend.writes import check_read_only
from emulator.p4c.lowering import const_flow
from emulator.p4c.lowering.calls import field_list, lower_call
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.controls import ControlLowering
from emulator.p4c.lowering.deparser_blocks import lower_deparser
from emulator.p4c.lowering.exprs import const_eval
from emulator.p4c.lowering.parser_blocks import lower_parser
from emulator.p4c.lowering.tables import cp_name


@contextlib.contextmanager
def _too_deep_is_an_error(filename: str) -> Iterator[None]:
    """A RecursionError becomes a CompileError (the parser's nesting limit should come first)."""
    try:
        yield
    except RecursionError:
        raise CompileError(Pos(filename, 1, 1), "program too deeply nested") from None


def compile_with_p4info(
    path: str | Path,
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str | None] | None = None,
) -> tuple[dict[str, Any], str]:
    """Compile a file and also produce its P4Info (protobuf text format)."""
    text = read_source(str(path))
    pre = preprocess(text, str(path), include_dirs, defines)
    with _too_deep_is_an_error(str(path)):
        comp = _Compiler(parse_program(pre), str(path))
        doc = comp.run()
    env = comp.env
    if env.anonymous_selectors:
        raise CompileError(
            Pos(str(path), 0, 0),
            f"table {env.anonymous_selectors[0]}: an anonymous action_selector cannot be used with "
            "P4Runtime output; declare a named instance and refer to it",
        )
    return doc, p4info_text(doc, env.counter_units, env.action_scopes)


def compile_with_files(
    text: str,
    filename: str,
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str | None] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Compile P4-16 source text (v1model) to a BMv2 JSON document; also return the files
    the preprocessor read (for the compile cache). ``emulator.p4c.compile_source`` and
    ``compile_file`` (module :mod:`emulator.p4c.cached`) are the public entry points."""
    pre = preprocess(text, filename, include_dirs, defines)
    with _too_deep_is_an_error(filename):
        return _Compiler(parse_program(pre), filename).run(), list(pre.files)


class _Compiler:
    def __init__(self, prog: A.Program, filename: str) -> None:
        self.prog = prog
        self.filename = filename
        self.env = Env(Path(filename).name)

    def _main(self) -> tuple[A.Instance, list[A.Stmt]]:
        mains = [d for d in self.prog.decls if isinstance(d, A.Instance) and d.name == "main"]
        if not mains:
            raise CompileError(
                end_of(self.filename), "no 'main' package instance (e.g. V1Switch(...) main;)"
            )
        m = mains[0]
        if m.type.name != "V1Switch":
            raise CompileError(
                m.pos, f"only the v1model V1Switch architecture is supported, not '{m.type.name}'"
            )
        if len(m.args) != 6:
            raise CompileError(m.pos, f"V1Switch expects 6 arguments, got {len(m.args)}")
        blocks = []
        for a in m.args:
            e = a.value
            decl = None
            if isinstance(e, A.Call) and isinstance(e.func, A.Name):
                decl = self.env.type_decls.get(e.func.name)
                if e.args:
                    raise CompileError(
                        e.pos, "constructor arguments for parsers/controls are not supported"
                    )
            elif isinstance(e, A.Name):
                inst = self.env.globals.lookup(e.name)
                if isinstance(inst, ObjRef) and inst.kind == "instance":
                    decl = self.env.type_decls.get(inst.decl.type.name)
            if not isinstance(decl, A.ParserDecl | A.ControlDecl):
                raise CompileError(
                    e.pos, "V1Switch arguments must be parser/control instantiations"
                )
            blocks.append(decl)
        self._check_block_types(m, blocks)
        return m, blocks  # type: ignore[return-value]

    def _check_block_types(self, m: A.Instance, blocks: list[Any]) -> None:
        """Each block's parameters against the type V1Switch declares for it (v1model.p4):
        their number and directions, as p4c's type checker does (``in H hdr`` where the
        architecture says ``inout`` is an error, not a silently different program)."""
        package = self.env.type_decls.get("V1Switch")
        if not isinstance(package, A.ProtoDecl):
            return
        for block, slot in zip(blocks, package.params, strict=False):
            proto = self.env.type_decls.get(slot.type.name)
            if not isinstance(proto, A.ProtoDecl):
                continue
            want = f"{proto.kind} {proto.name}({', '.join(_param_text(p) for p in proto.params)})"
            if len(block.params) != len(proto.params):
                raise CompileError(
                    block.pos,
                    f"{block.name} has {len(block.params)} parameters; V1Switch's "
                    f"'{slot.name}' is a {want}",
                )
            for mine, theirs in zip(block.params, proto.params, strict=True):
                if mine.direction != theirs.direction:
                    raise CompileError(
                        mine.pos,
                        f"{block.name}: parameter '{mine.name}' is "
                        f"'{mine.direction or 'directionless'}' where V1Switch's "
                        f"'{slot.name}' is a {want}",
                    )

    def run(self) -> dict[str, Any]:
        env = self.env
        declare(env, self.prog, const_eval)
        self._reserve_names()
        _, blocks = self._main()
        check_shadowing(self.prog)
        env.const_reads = const_flow.analyse(self.prog)
        check_read_only(self.prog)
        parser = blocks[0]
        if not isinstance(parser, A.ParserDecl) or len(parser.params) != 4:
            raise CompileError(parser.pos, "the V1Switch parser must have 4 parameters")
        htype = resolve_type(env, parser.params[1].type, const_eval)
        mtype = resolve_type(env, parser.params[2].type, const_eval)
        stype = resolve_type(env, parser.params[3].type, const_eval)
        if (
            not isinstance(htype, T.StructT)
            or not isinstance(mtype, T.StructT)
            or not isinstance(stype, T.StructT)
        ):
            raise CompileError(parser.pos, "headers and metadata parameters must be structs")
        std = env.add_header(
            "standard_metadata",
            T.StructT("struct", "standard_metadata", stype.fields),
            True,
            parser.pos,
        )
        for fname, _ in stype.fields:
            alias = self._alias(stype, fname)
            if alias:
                env.field_aliases.append([alias, ["standard_metadata", fname]])
        hdr = env.allocate("", htype, parser.pos)
        meta = env.allocate("userMetadata", mtype, parser.pos, header_prefix="userMetadata")
        self._field_lists(mtype, meta)
        shared = {"hdr": hdr, "meta": meta, "std": std}
        self._global_instances()

        pj = lower_parser(parser, self._ctx(parser, shared, "parser"))
        names = ["verify", "ingress", "egress", "compute", "deparser"]
        for n, b in zip(names, blocks[1:], strict=True):
            if not isinstance(b, A.ControlDecl):
                raise CompileError(b.pos, f"V1Switch {n} argument must be a control")
        lower_checksum_control(blocks[1], self._ctx(blocks[1], shared, "control"), True)  # type: ignore[arg-type]
        pipes = []
        for i, (b, pname) in enumerate(((blocks[2], "ingress"), (blocks[3], "egress"))):
            pl = ControlLowering(self._ctx(b, shared, "control"), pname)  # type: ignore[arg-type]
            pipe = pl.lower(b, self._ctx(b, shared, "control"))  # type: ignore[arg-type]
            pipe["id"] = i
            pipes.append(pipe)
        lower_checksum_control(blocks[4], self._ctx(blocks[4], shared, "control"), False)  # type: ignore[arg-type]
        dj = lower_deparser(blocks[5], self._ctx(blocks[5], shared, "control"))  # type: ignore[arg-type]
        return assemble(env, pj, pipes, dj, self.filename)

    def _reserve_names(self) -> None:
        """Keep synthesized names (act, tbl_act, cksum, ...) clear of the program's own."""
        for d in self.prog.decls:
            if isinstance(d, A.ActionDecl | A.Instance):
                self.env.names_used.add(d.name)
            elif isinstance(d, A.ControlDecl | A.ParserDecl):
                for loc in d.locals:
                    if isinstance(loc, A.ActionDecl | A.TableDecl | A.Instance):
                        self.env.names_used.add(loc.name)
                        self.env.names_used.add(cp_name(d.name, loc.name, loc.annotations))

    def _global_instances(self) -> None:
        """Top-level extern instances (e.g. a register shared by ingress and egress)."""
        ctx = self._ctx(None, {}, "global")
        for d in self.prog.decls:
            if isinstance(d, A.Instance) and d.name != "main":
                decl = self.env.type_decls.get(d.type.name)
                if isinstance(decl, A.ExternDecl):
                    self.env.globals.bind(d.name, V1MODEL.declare_instance(ctx, d, d.name))

    def _alias(self, stype: T.StructT, fname: str) -> str | None:
        decl = self.env.type_decls.get("standard_metadata_t")
        if isinstance(decl, A.StructDecl):
            for f in decl.fields:
                if f.name == fname:
                    a = A.anno(f.annotations, "alias")
                    return str(a[0]) if a else None
        return None

    def _field_lists(self, mtype: T.StructT, meta: Value) -> None:
        """``@field_list(N)`` members of the user metadata, nested structs' fields too, in
        declaration order (the lists ``*_preserving_field_list(N)`` keep)."""
        members: dict[int, list[Any]] = {}
        ctx = self._ctx(None, {}, "global")

        def walk(stype: T.Type, value: Value) -> None:
            decl = self.env.type_decls.get(getattr(stype, "name", ""))
            if not (isinstance(decl, A.StructDecl) and isinstance(value, StructRef)):
                return
            for f in decl.fields:
                v = value.fields.get(f.name)
                if v is None:
                    continue
                for idx in A.anno(f.annotations, "field_list") or ():
                    if isinstance(idx, int):
                        listed = members.setdefault(idx, [])
                        listed += [x for x in field_list(v, f.pos, ctx) if x not in listed]
                walk(v.type, v)

        walk(mtype, meta)
        self.env.field_list_members = members  # type: ignore[attr-defined]

    def _ctx(
        self, decl: A.ParserDecl | A.ControlDecl | None, shared: dict[str, Value], where: str
    ) -> Ctx:
        ctx = Ctx(self.env, Scope(self.env.globals), where, decl.name if decl else "")
        ctx.calls = lower_call
        ctx.arch = V1MODEL
        if decl is None:
            return ctx
        for p in decl.params:
            t = resolve_type(self.env, p.type, const_eval)
            if isinstance(t, T.NamedT) and t.name in ("packet_in", "packet_out"):
                ctx.scope.bind(p.name, ObjRef(t.name, p.name))
            elif isinstance(t, T.StructT) and t.name == "standard_metadata_t":
                ctx.scope.bind(p.name, shared["std"])
            elif (
                isinstance(t, T.StructT)
                and isinstance(shared["hdr"], StructRef)
                and t is shared["hdr"].type
            ):
                ctx.scope.bind(p.name, shared["hdr"])
            elif (
                isinstance(t, T.StructT)
                and isinstance(shared["meta"], StructRef)
                and t is shared["meta"].type
            ):
                ctx.scope.bind(p.name, shared["meta"])
            else:
                raise CompileError(
                    p.pos,
                    f"unexpected parameter '{p.name}' of type {t.show()} for a V1Switch block",
                )
        if decl.ctor_params:
            raise CompileError(
                decl.pos, "constructor parameters on top-level blocks are not supported"
            )
        return ctx


def _param_text(p: A.Param) -> str:
    """``inout H hdr``: a parameter as declared."""
    return " ".join(x for x in (p.direction, p.type.name, p.name) if x)
