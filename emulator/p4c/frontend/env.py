"""Compilation state: global declarations, name scopes, and BMv2 storage allocation.

Storage follows p4c-bm2-ss: one ``scalars`` metadata header for bit/bool locals and user
metadata, ``standard_metadata``, and one header instance per header (stack elements
``name[i]``).
"""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import (
    RV,
    HeaderRef,
    ListV,
    StackRef,
    StructRef,
    UnionRef,
    UnionStackRef,
    Value,
)  # fmt: skip

CORE_ERRORS = (
    "NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds",
    "HeaderTooShort", "ParserTimeout", "ParserInvalidArgument",
)  # fmt: skip


class Scope:
    """A chain of name -> value maps."""

    def __init__(self, parent: Scope | None = None) -> None:
        self.names: dict[str, Value] = {}
        self.parent = parent

    def lookup(self, name: str) -> Value | None:
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def bind(self, name: str, value: Value) -> None:
        self.names[name] = value


class Env:
    """Everything known about the program plus the JSON being built."""

    def __init__(self, program_name: str) -> None:
        self.program_name = program_name
        self.globals = Scope()
        self.const_reads: dict[int, Any] = {}  # lowering.const_flow.analyse's result
        self.type_decls: dict[str, A.Stmt] = {}
        self.errors: dict[str, int] = {}
        self.match_kinds: set[str] = set()
        self.enums: dict[str, T.EnumT] = {}
        self.resolved: dict[str, T.Type] = {}
        # JSON accumulators
        self.header_types: list[dict[str, Any]] = []
        self._header_type_names: set[str] = set()
        self.headers: list[dict[str, Any]] = []
        self._header_names: set[str] = set()
        self.header_stacks: list[dict[str, Any]] = []
        self.header_union_types: list[dict[str, Any]] = []
        self.header_unions: list[dict[str, Any]] = []
        self.header_union_stacks: list[dict[str, Any]] = []
        self.scalars: list[list[Any]] = []
        self._scalar_names: set[str] = set()
        self.out: dict[str, list[Any]] = {
            k: []
            for k in [
                "parse_vsets",
                "meter_arrays",
                "counter_arrays",
                "register_arrays",
                "calculations",
                "learn_lists",
                "actions",
                "checksums",
                "field_lists",
                "extern_instances",
            ]
        }
        self.action_ids: dict[str, int] = {}  # an action's first (or only) BMv2 action
        #: (action, what its out/inout parameters are bound to) -> its BMv2 action: each
        #: binding in a table's actions list is an action of its own
        self.bound_actions: dict[tuple[str, str], int] = {}
        self.names_used: set[str] = set()
        self.table_id = 0
        self.cond_id = 0
        self.state_id = 0
        self.profile_id = 0
        self.field_aliases: list[Any] = []
        self.counter_units: dict[str, str] = {}  # for P4Info
        self.action_scopes: dict[str, dict[str, str]] = {}  # table -> action -> scope, P4Info
        #: implementations written in a table: the table's name -> action_profile_N
        self.anonymous_profile_names: dict[str, str] = {}
        self.anonymous_selectors: list[
            str
        ] = []  # tables with `implementation = action_selector(...)`
        self._add_header_type("scalars_0", [])
        self.headers.append(
            {
                "name": "scalars",
                "id": 0,
                "header_type": "scalars_0",
                "metadata": True,
                "pi_omit": True,
            }
        )
        self._header_names.add("scalars")
        for i, e in enumerate(CORE_ERRORS):
            self.errors[e] = i

    # -------------------------------------------------------------- names
    def unique(self, base: str) -> str:
        """A name not used before for a synthesized object (``base``, ``base_0``, ...)."""
        if base not in self.names_used:
            self.names_used.add(base)
            return base
        i = 0
        while f"{base}_{i}" in self.names_used:
            i += 1
        name = f"{base}_{i}"
        self.names_used.add(name)
        return name

    # -------------------------------------------------------------- header types
    def _add_header_type(self, name: str, fields: list[list[Any]], **extra: Any) -> None:
        entry = {"name": name, "id": len(self.header_types), "fields": fields}
        entry.update(extra)
        self.header_types.append(entry)
        self._header_type_names.add(name)

    def header_type_name(self, t: T.StructT, pos: Pos) -> str:
        """Emit (once) the header type for ``t`` and return its JSON name."""
        if t.name in self._header_type_names:
            return t.name
        fields: list[list[Any]] = []
        extra: dict[str, Any] = {}
        for fname, ft in t.fields:
            if isinstance(ft, T.Bits):
                fields.append([fname, ft.width, ft.signed])
            elif isinstance(ft, T.BoolT):
                fields.append([fname, 1, False])
            elif isinstance(ft, (T.ErrorT, T.EnumT)):
                fields.append([fname, T.width_of(ft), False])
            elif isinstance(ft, T.Varbit):
                fields.append([fname, "*"])
                extra["max_length"] = (t.bit_width() + ft.max_width + 7) // 8
            else:
                raise CompileError(
                    pos, f"field '{fname}' of {t.show()} has unsupported type {ft.show()}"
                )
        total = sum(f[1] for f in fields if isinstance(f[1], int))
        if t.kind != "header":
            if total % 8:
                fields.append(["_padding", 8 - total % 8, False])
        elif total % 8 and not extra:  # as p4c-bm2-ss: BMv2 parses and emits whole bytes
            decl = self.type_decls.get(t.name)
            raise CompileError(
                getattr(decl, "pos", None) or pos,
                f"header {t.name}: its fields total {total} bits; BMv2 supports only headers "
                "of whole bytes (a multiple of 8 bits)",
            )
        self._add_header_type(t.name, fields, **extra)
        return t.name

    # -------------------------------------------------------------- instances
    def add_header(self, name: str, t: T.StructT, metadata: bool, pos: Pos) -> HeaderRef:
        tname = self.header_type_name(t, pos)
        if name in self._header_names:
            name = self.unique(name)
        self._header_names.add(name)
        self.headers.append(
            {
                "name": name,
                "id": len(self.headers),
                "header_type": tname,
                "metadata": metadata,
                "pi_omit": True,
            }
        )
        return HeaderRef(name, t)

    def add_scalar(self, name: str, t: T.Type, pos: Pos) -> RV:
        """A new field in ``scalars`` (bit, int, bool, error, enum types)."""
        w = T.width_of(t)
        if w is None or isinstance(t, T.Varbit):
            raise CompileError(pos, f"cannot allocate storage of type {t.show()}")
        base = name
        i = 0
        while name in self._scalar_names:
            name = f"{base}_{i}"
            i += 1
        self._scalar_names.add(name)
        self.scalars.append([name, w, isinstance(t, T.Bits) and t.signed])
        return RV({"type": "field", "value": ["scalars", name]}, t, lvalue=True)

    def allocate(self, prefix: str, t: T.Type, pos: Pos, header_prefix: str | None = None) -> Value:
        """Storage for a variable of type ``t``; header instances are named ``header_prefix+field``."""
        hp = prefix if header_prefix is None else header_prefix
        if isinstance(t, T.StructT):
            if t.kind == "header":
                return self.add_header(hp or t.name, t, False, pos)
            if t.kind == "header_union":
                return self._add_union(hp or t.name, t, pos)
            fields: dict[str, Value] = {}
            for fname, ft in t.fields:
                sub_hp = f"{hp}.{fname}" if hp else fname
                fields[fname] = self.allocate(
                    f"{prefix}.{fname}" if prefix else fname, ft, pos, sub_hp
                )
            return StructRef(t, fields)
        if isinstance(t, T.StackT):
            return self._add_stack(hp, t, pos)
        if isinstance(t, T.TupleT):  # a tuple local: one storage per element, read as a list
            items = [self.allocate(f"{prefix}_{i}", it, pos) for i, it in enumerate(t.items)]
            return ListV(items, t)
        return self.add_scalar(prefix, t, pos)

    def _add_stack(self, name: str, t: T.StackT, pos: Pos) -> StackRef | UnionStackRef:
        if isinstance(t.elem, T.StructT) and t.elem.kind == "header_union":
            return self._add_union_stack(name, t, t.elem, pos)
        if not isinstance(t.elem, T.StructT) or t.elem.kind != "header":
            raise CompileError(pos, "stacks need header or header_union elements")
        elems = [self.add_header(f"{name}[{i}]", t.elem, False, pos) for i in range(t.size)]
        self.header_stacks.append(
            {
                "name": name,
                "id": len(self.header_stacks),
                "header_type": t.elem.name,
                "size": t.size,
                "header_ids": [self._header_id(e.name) for e in elems],
            }
        )
        return StackRef(name, t, elems)

    def _add_union_stack(self, name: str, t: T.StackT, elem: T.StructT, pos: Pos) -> UnionStackRef:
        """Unions ``name[i]`` (members ``name[i].m``) and their ``header_union_stacks`` entry."""
        elems = [self._add_union(f"{name}[{i}]", elem, pos) for i in range(t.size)]
        first = len(self.header_unions) - t.size
        self.header_union_stacks.append(
            {
                "name": name,
                "id": len(self.header_union_stacks),
                "union_type": elem.name,
                "size": t.size,
                "header_union_ids": list(range(first, first + t.size)),
            }
        )
        return UnionStackRef(name, t, elems)

    def _add_union(self, name: str, t: T.StructT, pos: Pos) -> UnionRef:
        if not any(u["name"] == t.name for u in self.header_union_types):
            self.header_union_types.append(
                {
                    "name": t.name,
                    "id": len(self.header_union_types),
                    "headers": [[f, ft.name] for f, ft in t.fields if isinstance(ft, T.StructT)],
                }
            )
        members = {}
        for f, ft in t.fields:
            assert isinstance(ft, T.StructT)
            members[f] = self.add_header(f"{name}.{f}", ft, False, pos)
        self.header_unions.append(
            {
                "name": name,
                "id": len(self.header_unions),
                "union_type": t.name,
                "header_ids": [self._header_id(m.name) for m in members.values()],
                "pi_omit": True,
            }
        )
        return UnionRef(name, t, members)

    def _header_id(self, name: str) -> int:
        for h in self.headers:
            if h["name"] == name:
                return int(h["id"])
        raise KeyError(name)

    # -------------------------------------------------------------- actions
    def add_action(
        self,
        name: str,
        runtime_data: list[dict[str, Any]],
        primitives: list[Any],
        pos: Pos | None = None,
    ) -> int:
        """Register a JSON action; returns its id."""
        aid = len(self.out["actions"])
        entry: dict[str, Any] = {
            "name": name,
            "id": aid,
            "runtime_data": runtime_data,
            "primitives": primitives,
        }
        if pos is not None:
            entry["source_info"] = source_info(pos)
        self.out["actions"].append(entry)
        self.action_ids.setdefault(name, aid)
        return aid

    def error_code(self, name: str) -> int | None:
        return self.errors.get(name)


def source_info(pos: Pos, text: str = "") -> dict[str, Any]:
    """The ``source_info`` object p4c attaches to JSON objects."""
    return {"filename": pos.file, "line": pos.line, "column": pos.col, "source_fragment": text}
