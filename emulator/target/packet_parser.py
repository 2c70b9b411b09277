"""Parser, deparser, calculations and checksums of a BMv2 JSON program, compiled.

Parse states become functions ``(f, p) -> next state | None``; a parser error raises
``ParserErrorSignal`` and the driver records it in ``standard_metadata.parser_error``
(the packet is *not* dropped: v1model semantics). Unparsed bytes become the payload.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.target import hashes
from emulator.target.codegen import CodeGen, ParserErrorSignal, hexint
from emulator.target.errors import ProgramError
from emulator.target.packet import Pkt
from emulator.target.primitives import ActionCompiler
from emulator.target.program import HeaderInfo
from emulator.target.union_stacks import extract_plan

MAX_PARSER_STEPS = 4096  # a parser looping without consuming input stops with ParserTimeout


def _extract_lines(h: HeaderInfo, base: str, too_short: int) -> list[str]:
    nbits = h.nbits
    if nbits % 8:
        raise ProgramError(f"header {h.name} is {nbits} bits, not a whole number of bytes")
    nbytes = nbits // 8
    lines = [
        "o = p.off",
        f"e = o + {nbytes}",
        "if e > p.n:",
        f"    raise _PE({too_short})",
        "x = _ifb(p.buf[o:e], _BIG)",
        "p.off = e",
    ]
    shift = nbits
    for i, (_, width, _) in enumerate(h.fields):
        shift -= width
        slot = f"{base} + {i}" if not base.isdigit() else str(int(base) + i)
        part = f"x >> {shift}" if shift else "x"
        lines.append(f"f[{slot}] = {part} & {(1 << width) - 1}" if i else f"f[{slot}] = {part}")
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


def _emit_expr(h: HeaderInfo) -> str:
    nbits, shift, parts = h.nbits, h.nbits, []
    for i, (_, width, _) in enumerate(h.fields):
        shift -= width
        parts.append(f"(f[{h.base + i}] << {shift})" if shift else f"f[{h.base + i}]")
    return f"({' | '.join(parts) or '0'}).to_bytes({nbits // 8}, _BIG)"


class Parser:
    """One compiled ``parsers[]`` entry."""

    def __init__(self, cg: CodeGen, doc: dict[str, Any], actions: ActionCompiler) -> None:
        self.cg, self.layout = cg, cg.layout
        errs = self.layout.errors
        self.too_short, self.no_match = errs["PacketTooShort"], errs["NoMatch"]
        self.timeout = errs.get("ParserTimeout", 5)
        self.error_slot = self.layout.std["parser_error"]
        self._install(cg)
        states = doc.get("parse_states", [])
        names = {str(s["name"]): cg.fresh("ps_") for s in states}
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
        #: compiled state function -> its JSON (for framereplay's static look at a path)
        self.state_docs = {cg.ns[names[str(s["name"])]]: s for s in states}

    @staticmethod
    def _install(cg: CodeGen) -> None:
        cg.ns["_xvl"] = extract_vl

    def _compile_state(self, s: dict[str, Any], names: dict[str, str], ac: ActionCompiler) -> None:
        cg = self.cg
        body = ["d = ()"]
        for op in s.get("parser_ops", []):
            body += self._op(op, ac)
        body += self._transitions(s, names)
        cg.function(names[str(s["name"])], "f, p", body)

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

    def _transitions(self, s: dict[str, Any], names: dict[str, str]) -> list[str]:
        """The Python lines computing the transition key and returning the next state."""
        cg = self.cg
        body: list[str] = []
        key = s.get("transition_key", [])
        widths, parts = [], []
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
        if parts:
            terms, shift = [], sum(widths)
            for src, width in zip(parts, widths):
                shift -= width
                terms.append(f"({src} << {shift})" if shift else src)
            body.append(f"k = {' | '.join(terms)}")
        has_default = False
        for t in s.get("transitions", []):
            nxt = t.get("next_state")
            target = "None" if nxt is None else names.get(str(nxt))
            if target is None:
                raise ProgramError(f"transition to unknown state {nxt!r}")
            ttype = t.get("type") or (
                "default" if t.get("value") in (None, "default") else "hexstr"
            )
            if ttype == "default" or not parts:
                body.append(f"return {target}")
                has_default = True
                break
            mask = hexint(t["mask"], "mask") if t.get("mask") is not None else None
            if ttype == "hexstr":
                value = hexint(t["value"], "transition value")
                cond = f"(k & {mask}) == {value & mask}" if mask is not None else f"k == {value}"
            elif ttype == "parse_vset":
                vs = cg.const(cg.ns["_vsets"].setdefault(str(t["value"]), set()))
                m = mask if mask is not None else (1 << sum(widths)) - 1
                cond = f"any((k & {m}) == (v & {m}) for v in {vs})"
            else:
                raise ProgramError(f"unsupported transition type {ttype!r}")
            body += [f"if {cond}:", f"    return {target}"]
        if not has_default:  # as BMv2: no case matches and no default -> accept, no error
            body.append("return None")
        return body

    def _extract(self, tv: dict[str, Any]) -> list[str]:
        h, base, pre, post = self._target(tv)
        if h.vl is not None:
            raise ProgramError(f"extract of {h.name} (varbit) needs a length (extract_VL)")
        return [*pre, *_extract_lines(h, base, self.too_short), *post]

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
        self.emitters = [
            (h, cg.function(cg.fresh("emit_"), "f", [f"return {self._emit(cg, h)}"]))
            for h in self.order
        ]

    @staticmethod
    def _emit(cg: CodeGen, h: HeaderInfo) -> str:
        return f"_evl(f, {cg.const(h)})" if h.vl is not None else _emit_expr(h)

    def tail(self, f: list[int], p: Pkt, after: HeaderInfo | None) -> bytes:
        """Valid headers placed after ``after`` in deparse order, plus the payload."""
        out, seen = [], after is None
        for h, emit in self.emitters:
            if seen and f[h.valid]:
                out.append(emit(f))
            if h is after:
                seen = True
        out.append(p.payload)
        return b"".join(out)


class Calculation:
    """A named ``calculations[]`` entry: its input packer and hash algorithm."""

    def __init__(self, cg: CodeGen, doc: dict[str, Any], deparser: Deparser | None) -> None:
        self.name = str(doc.get("name"))
        self.algo = str(doc.get("algo"))
        self.inputs: list[dict[str, Any]] = list(doc.get("input", []))
        if self.algo not in hashes.HASHES and self.algo != "random":
            raise ProgramError(f"calculation {self.name}: unsupported algorithm {self.algo!r}")
        self.params: hashes.CrcParams | None = None
        self.deparser = deparser
        layout = cg.layout
        # Pack MSB-first into one integer, as hashes.pack_fields does (zero-pad on the right);
        # fields of invalid headers are skipped, consecutive fields share one validity test.
        groups: list[tuple[HeaderInfo | None, list[tuple[str, str]]]] = []
        last: HeaderInfo | None = None
        payload = False
        for item in doc.get("input", []):
            kind, value = item.get("type"), item.get("value")
            if kind == "field":
                slot, width, _ = layout.field(str(value[0]), str(value[1]))
                h = layout.header(str(value[0]))
                w = str(width)
                if h.vl is not None and h.index.get(str(value[1])) == h.vl:
                    w = f"f[{h.vl_len}]"
                terms = [(f"f[{slot}]", w)]
                last = h
            elif kind == "hexstr":
                width = int(item.get("bitwidth", 0))
                terms = [(str(hexint(value, "calculation") & ((1 << width) - 1)), str(width))]
                h = None
            elif kind == "header":
                h = layout.header(str(value))
                terms = [(f"f[{h.base + i}]", str(w)) for i, (_, w, _) in enumerate(h.fields)]
                last = h
            elif kind == "payload":
                payload = True
                continue
            else:
                raise ProgramError(f"calculation {self.name}: unsupported input {kind!r}")
            guard = None if h is None or h.metadata else h
            if groups and groups[-1][0] is guard:
                groups[-1][1].extend(terms)
            else:
                groups.append((guard, terms))
        body = ["a = 0", "n = 0"]
        for guard, terms in groups:
            lines = [f"a = (a << {w}) | {v}" for v, w in terms]
            lines.append(f"n += {' + '.join(w for _, w in terms)}")
            if guard is None:
                body += lines
            else:
                body += [f"if f[{guard.valid}]:", *["    " + ln for ln in lines]]
        body += ["k = -n % 8", "x = (a << k).to_bytes((n + k) // 8, _BIG)"]
        if payload:
            me = cg.const(self)
            body.append(f"return x + {me}.deparser.tail(f, p, {cg.const(last)})")
        else:
            body.append("return x")
        self.data: Callable[[list[int], Pkt], bytes] = cg.function(cg.fresh("calc_"), "f, p", body)
        # HashAlgorithm.random: a (seeded) random value instead of a hash, as BMv2 does
        rng: Any = cg.ns.get("_rng")
        self._hash = hashes.HASHES.get(self.algo) or (lambda _data: rng.getrandbits(32))

    def __call__(self, f: list[int], p: Pkt) -> int:
        """The hash of this calculation's input for the current packet."""
        data = self.data(f, p)
        if self.params is not None:
            return hashes.crc(self.params, data)
        return self._hash(data)


class Checksums:
    """``checksums[]``: verified after parsing, updated before deparsing."""

    def __init__(self, cg: CodeGen, doc: list[dict[str, Any]], calcs: dict[str, Calculation]):
        layout = cg.layout
        self.verify_list, self.update_list = [], []
        self.error_slot = layout.std["checksum_error"]
        for c in doc:
            target: Any = c.get("target")
            slot, width, _ = layout.field(str(target[0]), str(target[1]))
            calc = calcs.get(str(c.get("calculation")))
            if calc is None:
                raise ProgramError(f"checksum {c.get('name')}: unknown calculation")
            cond = None
            if c.get("if_cond") is not None:
                cond = cg.function(cg.fresh("ck_"), "f, p", [f"return {cg.expr(c['if_cond'])}"])
            item = (slot, (1 << width) - 1, calc, cond)
            if c.get("verify", True):
                self.verify_list.append(item)
            if c.get("update", True):
                self.update_list.append(item)

    def verify(self, f: list[int], p: Pkt) -> None:
        """Set ``checksum_error`` when a verified checksum does not match."""
        for slot, mask, calc, cond in self.verify_list:
            if (cond is None or cond(f, p)) and (calc(f, p) & mask) != f[slot]:
                f[self.error_slot] = 1

    def update(self, f: list[int], p: Pkt) -> None:
        """Recompute every updated checksum into its target field."""
        for slot, mask, calc, cond in self.update_list:
            if cond is None or cond(f, p):
                f[slot] = calc(f, p) & mask
