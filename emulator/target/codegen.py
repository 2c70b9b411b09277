"""Compile BMv2 JSON expressions into Python source, then into functions, at load time.

Safety rule: generated source contains only identifiers this module makes up (checked
against ``_IDENT``), integer literals, Python operators and a fixed set of keywords.
Nothing from the JSON text is pasted in verbatim: strings, names and objects the code
needs are put in the namespace under generated names (``_o12``) and referenced by name.

Generated functions see the per-packet slot list ``f`` (see :mod:`.program`), the packet
context ``p`` and, in actions, the action data tuple ``d``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from types import CodeType
from typing import Any

from emulator.target.errors import ProgramError
from emulator.target.program import HeaderInfo, Layout

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@functools.lru_cache(maxsize=8192)
def _compiled(source: str, filename: str) -> CodeType:
    """``compile`` once per distinct source: a fabric's switches load the same program, so
    every switch after the first reuses the code objects (each still runs in its own
    namespace)."""
    return compile(source, filename, "exec")


_BINOPS = {
    "+": "+", "-": "-", "*": "*", "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^",
    "==": "==", "!=": "!=", ">": ">", ">=": ">=", "<": "<", "<=": "<=", "and": "and",
    "or": "or", "/": "//", "%": "%",
}  # fmt: skip
_UNOPS = {"-": "-", "not": "not ", "~": "~"}  # "-" only when there is no left operand
_CASTS = {"two_comp_mod": "_sx", "sat_cast": "_sat", "usat_cast": "_usat"}  # (value, width)


class ParserErrorSignal(Exception):
    """Raised by generated parser code; ``code`` is the P4 error value."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def to_signed(value: int, width: int) -> int:
    """Interpret the low ``width`` bits of ``value`` as two's complement."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def _sat(value: int, width: int) -> int:
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    return lo if value < lo else hi if value > hi else value


def _usat(value: int, width: int) -> int:
    hi = (1 << width) - 1
    return 0 if value < 0 else hi if value > hi else value


def lit(value: int) -> str:
    """An integer literal (parenthesised when negative)."""
    value = int(value)
    return str(value) if value >= 0 else f"({value})"


def hexint(text: Any, where: str) -> int:
    """Parse a BMv2 hexstring (``0x..``, ``-0x..``) or an int."""
    if isinstance(text, bool):
        return int(text)
    if isinstance(text, int):
        return text
    try:
        return int(str(text), 16)
    except ValueError:
        raise ProgramError(f"BMv2 JSON: bad hexstring {text!r} in {where}") from None


@dataclass
class HRef:
    """A header reference: static (``header``) or a stack member chosen at run time."""

    proto: HeaderInfo  # a header of the right type (field offsets and widths)
    base: str  # source of the base slot: an int literal or an expression

    def slot(self, offset: int) -> str:
        """Source of the slot ``offset`` fields into the header."""
        if self.base.isdigit():
            return str(int(self.base) + offset)
        return f"{self.base} + {offset}"

    @property
    def valid(self) -> str:
        """Source of the validity slot."""
        return self.slot(len(self.proto.fields))


class CodeGen:
    """Holds the namespace of generated code and turns JSON fragments into source."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.ns: dict[str, Any] = {
            "_BIG": "big",
            "_EMPTY": b"",
            "_PE": ParserErrorSignal,
            "_sx": to_signed,
            "_sat": _sat,
            "_usat": _usat,
            "_ifb": int.from_bytes,
        }
        self.sources: list[str] = []  # every generated function, for inspection and tests
        #: straight-line action function -> its body lines (fastmatch inlines them)
        self.bodies: dict[Any, tuple[str, ...]] = {}
        #: an extern call's source -> (register or counter array, method, (its name here,
        #: index source, value or length source)): fastmatch's inlined bodies do it in place
        self.externs: dict[str, tuple[Any, str, tuple[str, str, str]]] = {}
        self._n = 0
        self._consts: dict[int, str] = {}

    # -- namespace -------------------------------------------------------------------------

    def const(self, obj: Any) -> str:
        """Put ``obj`` in the namespace; return its generated name."""
        key = id(obj)
        if key in self._consts and self.ns.get(self._consts[key]) is obj:
            return self._consts[key]
        self._n += 1
        name = f"_o{self._n}"
        self.ns[name] = obj
        self._consts[key] = name
        return name

    def fresh(self, prefix: str) -> str:
        """A new unique identifier starting with ``prefix``."""
        self._n += 1
        name = f"{prefix}{self._n}"
        if not _IDENT.match(name):
            raise ProgramError(f"internal: bad identifier {name!r}")
        return name

    def function(self, name: str, params: str, body: list[str]) -> Any:
        """Compile ``def name(params): body`` in the namespace and return the function."""
        for ident in [name, *[x.strip() for x in params.split(",") if x.strip()]]:
            if not _IDENT.match(ident):
                raise ProgramError(f"internal: bad identifier {ident!r}")
        lines = [f"def {name}({params}):"] + ["    " + ln for ln in (body or ["pass"])]
        source = "\n".join(lines) + "\n"
        self.sources.append(source)
        exec(_compiled(source, f"<bmv2:{name}>"), self.ns)  # generated: see module doc
        return self.ns[name]

    # -- references ------------------------------------------------------------------------

    def header_ref(self, tv: dict[str, Any]) -> HRef:
        """A ``header`` type-value (or an expression evaluating to a header)."""
        kind: Any = tv.get("type")
        value: Any = tv.get("value")
        if kind == "header":
            h = self.layout.header(str(value))
            return HRef(h, str(h.base))
        if kind == "expression":
            inner = _unwrap(value)
            if "op" not in inner and "type" in inner:
                return self.header_ref(inner)
            if inner.get("op") == "?":  # a header-valued conditional (p4c: hdr = c ? h1 : h2)
                a, b = self.header_ref(inner["left"]), self.header_ref(inner["right"])
                if a.proto.fields != b.proto.fields:
                    raise ProgramError("BMv2 JSON: '?' between headers of different types")
                cond = self.expr(inner["cond"])
                return HRef(a.proto, f"({a.base} if {cond} else {b.base})")
            if inner.get("op") == "dereference_header_stack":
                st = self.layout.stack(str(inner["left"]["value"]))
                idx = self.expr(inner["right"])
                return HRef(
                    st.headers[0], f"{self.const(tuple(h.base for h in st.headers))}[{idx}]"
                )
        raise ProgramError(f"BMv2 JSON: expected a header reference, got {tv!r}")

    def field_slot(self, tv: dict[str, Any]) -> tuple[str, int, bool]:
        """``(slot source, width, signed)`` of a field-like lvalue/rvalue."""
        kind: Any = tv.get("type")
        value: Any = tv.get("value")
        if kind == "field":
            slot, width, signed = self.layout.field(str(value[0]), str(value[1]))
            return str(slot), width, signed
        if kind == "stack_field":
            st = self.layout.stack(str(value[0]))
            proto = st.headers[0]
            fname = str(value[1])
            if fname not in proto.index:
                raise ProgramError(f"BMv2 JSON: stack {st.name} has no field {fname}")
            bases = self.const(tuple(h.base for h in st.headers))
            off = proto.index[fname]
            return f"{bases}[f[{st.next_slot}] - 1] + {off}", proto.fields[off][1], False
        if kind == "expression":
            inner = _unwrap(value)
            if "op" not in inner and "type" in inner:
                return self.field_slot(inner)
            if inner.get("op") == "access_field":
                href = self.header_ref(inner["left"])
                off = int(inner["right"])
                if not 0 <= off < len(href.proto.fields):
                    raise ProgramError(f"BMv2 JSON: access_field offset {off} out of range")
                return href.slot(off), href.proto.fields[off][1], href.proto.fields[off][2]
        raise ProgramError(f"BMv2 JSON: expected a field reference, got {tv!r}")

    # -- rvalues ---------------------------------------------------------------------------

    def expr(self, tv: Any) -> str:
        """Python source computing the value of a type-value object."""
        if not isinstance(tv, dict):
            raise ProgramError(f"BMv2 JSON: bad operand {tv!r}")
        kind: Any = tv.get("type")
        value: Any = tv.get("value")
        if kind in ("field", "stack_field"):
            return self._read(tv)
        if kind == "hexstr":
            return lit(hexint(value, "hexstr"))
        if kind == "bool":
            return "True" if value else "False"
        if kind in ("runtime_data", "local"):
            return f"d[{int(value)}]"
        if kind == "register":
            return (
                f"{self.const(self.ns['_registers'][str(value[0])].values)}[{self.expr(value[1])}]"
            )
        if kind == "lookahead":
            return f"p.look({int(value[0])}, {int(value[1])})"
        if kind == "header":
            return f"f[{self.header_ref(tv).valid}]"
        if kind == "expression":
            inner = _unwrap(value)
            if "op" not in inner and "type" in inner:
                return self.expr(inner)  # p4c wraps a plain operand too: {"type": "field", ...}
            return self._op(inner)
        raise ProgramError(f"BMv2 JSON: unsupported operand type {kind!r}")

    def _op(self, e: dict[str, Any]) -> str:
        op = e.get("op")
        left: Any = e.get("left")
        right: Any = e.get("right")
        if op in _BINOPS and left is not None:
            return f"({self.expr(left)} {_BINOPS[op]} {self.expr(right)})"
        if op in _UNOPS:
            return f"({_UNOPS[op]}{self.expr(right)})"
        if op == "d2b":
            return f"({self.expr(right)} != 0)"
        if op == "b2d":
            return f"(1 if {self.expr(right)} else 0)"
        if op == "valid":
            return f"(f[{self.header_ref(right).valid}] != 0)"
        if op == "valid_union":
            members = self.layout.unions.get(str(right.get("value")), [])
            return "(" + " or ".join([f"f[{h.valid}] != 0" for h in members] or ["False"]) + ")"
        if op == "?":
            c = self.expr(e["cond"])
            return f"({self.expr(left)} if {c} else {self.expr(right)})"
        if op in _CASTS:
            return f"{_CASTS[op]}({self.expr(left)}, {self.expr(right)})"
        if op in ("last_stack_index", "size_stack"):
            nxt = self._next_slot(right)
            return f"(f[{nxt}] - 1)" if op == "last_stack_index" else f"f[{nxt}]"
        if op == "access_field":
            return self._read({"type": "expression", "value": e})
        if op == "dereference_header_stack":
            return f"f[{self.header_ref({'type': 'expression', 'value': e}).valid}]"
        raise ProgramError(f"BMv2 JSON: unsupported expression operator {op!r}")

    def _next_slot(self, tv: dict[str, Any]) -> int:
        """The next-index slot of a header stack or a header-union stack."""
        if tv.get("type") == "header_union_stack":
            us = self.layout.union_stacks.get(str(tv.get("value")))
            if us is None:
                raise ProgramError(f"BMv2 JSON: unknown header union stack {tv.get('value')!r}")
            return us.next_slot
        return self.layout.stack(str(tv["value"])).next_slot

    def _read(self, tv: dict[str, Any]) -> str:
        """Source reading a field (sign-extended when the field is signed)."""
        slot, width, signed = self.field_slot(tv)
        return f"_sx(f[{slot}], {width})" if signed else f"f[{slot}]"

    # -- statements ------------------------------------------------------------------------

    def assign(self, target: dict[str, Any], src: str) -> list[str]:
        """Statements writing ``src`` (source) into a field lvalue, truncated to its width."""
        slot, width, _signed = self.field_slot(target)
        mask = (1 << width) - 1
        if re.fullmatch(r"\(?-?\d+\)?", src):
            return [f"f[{slot}] = {int(src.strip('()')) & mask}"]
        return [f"f[{slot}] = {src} & {mask}"]


def _unwrap(value: Any) -> dict[str, Any]:
    """The operator node (or plain operand) inside any number of ``expression`` wrappers."""
    while isinstance(value, dict) and value.get("type") == "expression":
        value = value.get("value")
    if not isinstance(value, dict):
        raise ProgramError(f"BMv2 JSON: bad expression {value!r}")
    return value
