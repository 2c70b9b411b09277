"""Parser, deparser, calculations and checksums of a BMv2 JSON program, compiled.

Parse states become functions ``(f, p) -> next state | None``; a parser error raises
``ParserErrorSignal`` and the driver records it in ``standard_metadata.parser_error``
(the packet is *not* dropped: v1model semantics). Unparsed bytes become the payload.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.target import parsefuse, unpack
from emulator.target.calculations import Calculation, Checksums
from emulator.target.codegen import CodeGen, ParserErrorSignal, hexint
from emulator.target.errors import ProgramError
from emulator.target.packet import Pkt
from emulator.target.parsefuse import case_lines
from emulator.target.primitives import ActionCompiler
from emulator.target.program import HeaderInfo
from emulator.target.union_stacks import extract_plan

__all__ = ["Calculation", "Checksums", "Deparser", "Parser", "emit_vl", "extract_vl"]

#: a parser looping without consuming input stops with ParserTimeout after this many states;
#: BMv2 has no bound (it loops for ever), so it is far above any parser that ends (a
#: 5,000-state loop ends on simple_switch: probe round 8)
MAX_PARSER_STEPS = 65536


def _ret(target: str) -> list[str]:
    return [f"return {target}"]


def _extract_lines(h: HeaderInfo, base: str, too_short: int, cg: CodeGen) -> list[str]:
    nbits = h.nbits
    if nbits % 8:
        raise ProgramError(f"header {h.name} is {nbits} bits, not a whole number of bytes")
    unpacker, fields = unpack.plan([width for _, width, _ in h.fields])
    lines = [
        "o = p.off",
        f"e = o + {nbits // 8}",
        "if e > p.n:",
        f"    raise _PE({too_short})",
        f"v = {cg.const(unpacker)}(p.buf, o)",
        "p.off = e",
    ]
    for i, (first, value) in enumerate(fields):
        slot = f"{base} + {i}" if not base.isdigit() else str(int(base) + i)
        lines += [first, f"f[{slot}] = {value}"] if first else [f"f[{slot}] = {value}"]
    valid = f"{base} + {len(h.fields)}" if not base.isdigit() else str(int(base) + len(h.fields))
    lines.append(f"f[{valid}] = 1")
    return lines


def extract_vl(
    f: list[int],
    p: Pkt,
    h: HeaderInfo,
    nbits: int,
    codes: tuple[int, int, int],
    base: int | None = None,
) -> None:
    """``extract(hdr, nbits)`` of a header with a varbit field (a rare, interpreted path);
    ``base``: the slots of the stack member extracted into, when not ``h``'s own.

    Errors in BMv2's order: length not whole bytes (ParserInvalidArgument), not enough
    packet (PacketTooShort), longer than the header's maximum (HeaderTooShort).
    """
    b = h.base if base is None else base
    too_short, too_long, invalid = codes
    if nbits < 0 or nbits % 8:
        raise ParserErrorSignal(invalid)
    total = h.nbits + nbits
    end = p.off + total // 8
    if end > p.n:
        raise ParserErrorSignal(too_short)
    if nbits > h.fields[h.vl or 0][1]:
        raise ParserErrorSignal(too_long)
    x = int.from_bytes(p.buf[p.off : end], "big")
    shift = total
    for i, (_, width, _) in enumerate(h.fields):
        w = nbits if i == h.vl else width
        shift -= w
        f[b + i] = (x >> shift) & ((1 << w) - 1)
    f[b + len(h.fields) + 1] = nbits  # the varbit length slot, after the validity bit
    f[b + len(h.fields)] = 1
    p.off = end


def expression_key_width(state: dict[str, Any], nkeys: int) -> int:
    """Bit width of a state's one-expression select key: p4c writes each case value as wide
    as the key (``0x00000002`` for a 32-bit stack index); 32 bits when no case says."""
    if nkeys != 1:
        raise ProgramError("a select on an expression together with other keys is not supported")
    digits = [
        len(str(t["value"]).removeprefix("0x"))
        for t in state.get("transitions", [])
        if t.get("type", "hexstr") == "hexstr" and t.get("value") not in (None, "default")
    ]
    return max(digits) * 4 if digits else 32


def emit_vl(f: list[int], h: HeaderInfo) -> bytes:
    """Serialise a header with a varbit field at its current length."""
    acc, total = 0, 0
    for i, (_, width, _) in enumerate(h.fields):
        w = f[h.vl_len] if i == h.vl else width
        acc = (acc << w) | (f[h.base + i] & ((1 << w) - 1))
        total += w
    return acc.to_bytes(total // 8, "big")


def _emit_expr(h: HeaderInfo, cg: CodeGen) -> str:
    """Source of header ``h``'s bytes: one precompiled struct pack of its fields."""
    widths = [width for _, width, _ in h.fields]
    packer, args = unpack.pack(widths, [f"f[{h.base + i}]" for i in range(len(widths))])
    return f"{cg.const(packer)}({', '.join(args)})"


def padded_key(value: int, fields: tuple[tuple[int, int], ...]) -> int:
    """A value-set entry (the key fields' bits packed, as the CLI takes it) in the layout of
    a select key, each field right-aligned in whole bytes (``fields``: (bits, padded)).

    As BMv2: ``pvs_add vs 0x025`` for a key ``(bit<8> a, bit<1> b)`` is a=0x12, b=1."""
    out, shift = 0, 0
    for width, padded in reversed(fields):
        out |= (value & ((1 << width) - 1)) << shift
        value >>= width
        shift += padded
    return out


class Parser:
    """One compiled ``parsers[]`` entry."""

    def __init__(
        self, cg: CodeGen, doc: dict[str, Any], actions: ActionCompiler, fused: bool = False
    ) -> None:
        self.cg, self.layout = cg, cg.layout
        errs = self.layout.errors
        self.too_short, self.no_match = errs["PacketTooShort"], errs["NoMatch"]
        self.timeout = errs.get("ParserTimeout", 5)
        self.error_slot = self.layout.std["parser_error"]
        self._install(cg)
        states = doc.get("parse_states", [])
        names = {str(s["name"]): cg.fresh("ps_") for s in states}
        #: state name -> (its op and key lines, its cases): what parsefuse inlines
        self.pieces: dict[str, tuple[list[str], list[tuple[str | None, str]]]] = {}
        for s in states:
            try:
                self._compile_state(s, names, actions)
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                msg = f"BMv2 JSON: parse state {s.get('name')}: malformed ({exc})"
                raise ProgramError(msg) from None
        init = doc.get("init_state")
        if init not in names:
            raise ProgramError(f"BMv2 JSON: parser init_state {init!r} is not a parse state")
        self.start = cg.ns[names[init]]
        #: the whole parser as one function (no state calls, no driver loop), or None
        codes = (self.error_slot, self.too_short)
        self.fused = parsefuse.fuse(cg, self.pieces, names[init], codes) if fused else None
        #: compiled state function -> its JSON (for framereplay's static look at a path)
        self.state_docs = {cg.ns[names[str(s["name"])]]: s for s in states}

    @staticmethod
    def _install(cg: CodeGen) -> None:
        cg.ns["_xvl"] = extract_vl

    def _compile_state(self, s: dict[str, Any], names: dict[str, str], ac: ActionCompiler) -> None:
        ops: list[str] = []
        for op in s.get("parser_ops", []):
            ops += self._op(op, ac)
        key, cases = self._transitions(s, names)
        name = names[str(s["name"])]
        self.pieces[name] = ([*ops, *key], cases)
        self.cg.function(name, "f, p", ["d = ()", *ops, *key, *case_lines(cases, _ret)])

    def _op(self, op: dict[str, Any], ac: ActionCompiler) -> list[str]:
        """The Python lines of one parser op."""
        cg = self.cg
        body: list[str] = []
        kind, ps = op.get("op"), op.get("parameters", [])
        if kind == "extract":
            body += self._extract(ps[0])
        elif kind == "extract_VL":
            h, base, pre, post = self._target(ps[0])
            if h.vl is None:
                raise ProgramError(f"extract_VL into {h.name}: no varbit field")
            errs = self.layout.errors
            codes = cg.const(
                (self.too_short, errs["HeaderTooShort"], errs["ParserInvalidArgument"])
            )
            xvl = f"_xvl(f, p, {cg.const(h)}, {cg.expr(ps[1])}, {codes}, {base})"
            body += [*pre, xvl, *post]
        elif kind == "set":
            body += cg.assign(ps[0], cg.expr(ps[1]))
        elif kind == "verify":
            body += [f"if not {cg.expr(ps[0])}:", f"    raise _PE({cg.expr(ps[1])})"]
        elif kind in ("advance", "shift"):
            amount = cg.expr(ps[0])
            invalid = self.layout.errors["ParserInvalidArgument"]
            if kind == "advance":
                body += [f"a = {amount}", "if a % 8:", f"    raise _PE({invalid})", "a //= 8"]
            else:
                body.append(f"a = {amount}")
            body += [
                "if p.off + a > p.n:",
                f"    raise _PE({self.too_short})",
                "p.off += a",
            ]
        elif kind == "primitive":
            body += ac.primitive(ps[0])
        else:
            raise ProgramError(f"unsupported parser op {kind!r}")
        return body

    def _transitions(
        self, s: dict[str, Any], names: dict[str, str]
    ) -> tuple[list[str], list[tuple[str | None, str]]]:
        """The Python lines computing the transition key, and the cases: (condition source,
        None for the default; the next state's name, "None" to accept)."""
        cg = self.cg
        body: list[str] = []
        key = s.get("transition_key", [])
        widths, parts, bits = [], [], []
        for k in key:
            if k["type"] == "lookahead":
                src, width = cg.expr(k), int(k["value"][1])
            elif k["type"] in ("field", "stack_field"):
                slot, width, _ = cg.field_slot(k)
                src = f"f[{slot}]"
            elif k["type"] == "expression":  # e.g. a stack's last index: width from the values
                src, width = cg.expr(k), expression_key_width(s, len(key))
            else:
                raise ProgramError(f"unsupported transition key type {k['type']!r}")
            parts.append(src)
            widths.append((width + 7) // 8 * 8)
            bits.append(width)
        if parts:
            terms, shift = [], sum(widths)
            for src, width in zip(parts, widths):
                shift -= width
                terms.append(f"({src} << {shift})" if shift else src)
            body.append(f"k = {' | '.join(terms)}")
        raw: list[tuple[str | list[int] | None, str]] = []  # a list: plain values, one test
        default: str | None = None
        for t in s.get("transitions", []):
            nxt = t.get("next_state")
            target = "None" if nxt is None else names.get(str(nxt))
            if target is None:
                raise ProgramError(f"transition to unknown state {nxt!r}")
            ttype = t.get("type") or (
                "default" if t.get("value") in (None, "default") else "hexstr"
            )
            if ttype == "default" or not parts:  # as BMv2: one default per state, the last
                default = target  # given, tried after every value case (p4c makes a
                continue  # ``_`` or ``&&& 0`` case a default wherever it stands)
            mask = hexint(t["mask"], "mask") if t.get("mask") is not None else None
            if ttype == "hexstr" and mask is None:
                value = hexint(t["value"], "transition value")
                last = raw[-1] if raw else None
                if last is not None and isinstance(last[0], list) and last[1] == target:
                    last[0].append(value)  # consecutive values to the same state
                else:
                    raw.append(([value], target))
                continue
            if ttype == "hexstr" and mask is not None:
                value = hexint(t["value"], "transition value")
                cond = f"(k & {mask}) == {value & mask}"
            elif ttype == "parse_vset":
                vs = cg.const(cg.ns["_vsets"].setdefault(str(t["value"]), set()))
                m = mask if mask is not None else (1 << sum(widths)) - 1
                v = "v"
                if bits != widths:  # values come packed: each field to its byte-aligned slot
                    v = f"{cg.const(padded_key)}(v, {cg.const(tuple(zip(bits, widths)))})"
                cond = f"any((k & {m}) == ({v} & {m}) for v in {vs})"
            else:
                raise ProgramError(f"unsupported transition type {ttype!r}")
            raw.append((cond, target))
        if default is not None:  # else no case matching means accept, no error, as BMv2
            raw.append((None, default))  # (case_lines ends with ``return None``)
        cases = [(self._values(c) if isinstance(c, list) else c, t) for c, t in raw]
        return body, cases

    def _values(self, values: list[int]) -> str:
        """The test of ``k`` against plain values (a set when there are several)."""
        return (
            f"k == {values[0]}" if len(values) == 1 else f"k in {self.cg.const(frozenset(values))}"
        )

    def _extract(self, tv: dict[str, Any]) -> list[str]:
        h, base, pre, post = self._target(tv)
        if h.vl is not None:
            raise ProgramError(f"extract of {h.name} (varbit) needs a length (extract_VL)")
        return [*pre, *_extract_lines(h, base, self.too_short, self.cg), *post]

    def _target(self, tv: dict[str, Any]) -> tuple[HeaderInfo, str, list[str], list[str]]:
        """Where an extract writes: (field layout, base slot source, statements before and
        after): a header, the next member of a stack, or a member of a union stack's next
        element (siblings invalidated, as BMv2's header unions)."""
        kind: Any = tv.get("type")
        value: Any = tv.get("value")
        if kind == "regular":
            h = self.layout.header(str(value))
            others = self.layout.union_siblings.get(h.name, [])
            return h, str(h.base), [], [f"f[{o.valid}] = 0" for o in others]
        oob = self.layout.errors["StackOutOfBounds"]
        bases: tuple[int, ...]
        sibs: tuple[tuple[int, ...], ...] | None = None
        if kind == "stack":
            st = self.layout.stack(str(value))
            proto, nxt, bases = st.headers[0], st.next_slot, tuple(h.base for h in st.headers)
        elif kind == "union_stack":
            us = self.layout.union_stacks.get(str(value[0]))
            if us is None:
                raise ProgramError(f"unknown header union stack {value[0]!r}")
            proto, nxt = us.elements[0][us.member(str(value[1]))], us.next_slot
            bases, sibs = extract_plan(us, str(value[1]))
        else:
            raise ProgramError(f"unsupported extract target {kind!r}")
        pre = [f"i = f[{nxt}]", f"if i >= {len(bases)}:", f"    raise _PE({oob})"]
        pre.append(f"b = {self.cg.const(bases)}[i]")
        post = [f"f[{nxt}] = i + 1"]
        if sibs is not None:
            post = [f"for s in {self.cg.const(sibs)}[i]:", "    f[s] = 0", *post]
        return proto, "b", pre, post

    def parse(self, f: list[int], p: Pkt, path: list[Any] | None = None) -> None:
        """Run the parser; on error set parser_error. Leaves the payload in ``p``;
        ``path``, if given, gets each state function run."""
        if path is None and self.fused is not None:
            self.fused(f, p)  # errors and the payload too
            return
        state = self.start
        steps = 0
        try:
            while state is not None:
                if path is not None:
                    path.append(state)
                state = state(f, p)
                steps += 1
                if steps > MAX_PARSER_STEPS:
                    raise ParserErrorSignal(self.timeout)
        except ParserErrorSignal as err:
            f[self.error_slot] = self.too_short if err.code == -1 else err.code
        p.payload = p.buf[p.off :]


class Deparser:
    """Serialise valid headers in the deparser's order, then the payload."""

    def __init__(self, cg: CodeGen, doc: dict[str, Any]) -> None:
        layout = cg.layout
        self.order = [layout.header(str(n)) for n in doc.get("order", [])]
        self.order = [h for h in self.order if not h.metadata]
        body = ["o = []"]
        cg.ns["_evl"] = emit_vl
        for h in self.order:
            if h.nbits % 8:
                raise ProgramError(f"header {h.name} is {h.nbits} bits, not whole bytes")
            body += [f"if f[{h.valid}]:", f"    o.append({self._emit(cg, h)})"]
        body += ["o.append(p.payload)", "return _EMPTY.join(o)"]
        self.deparse: Callable[[list[int], Pkt], bytes] = cg.function(
            cg.fresh("dep_"), "f, p", body
        )

    @staticmethod
    def _emit(cg: CodeGen, h: HeaderInfo) -> str:
        return f"_evl(f, {cg.const(h)})" if h.vl is not None else _emit_expr(h, cg)
