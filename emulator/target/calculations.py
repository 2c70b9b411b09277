"""Calculations (hashes over field lists) and checksums of a BMv2 JSON program, compiled."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from emulator.target import hashes, unpack
from emulator.target.codegen import CodeGen, hexint
from emulator.target.errors import ProgramError
from emulator.target.packet import Pkt
from emulator.target.program import HeaderInfo

if TYPE_CHECKING:
    from emulator.target.packet_parser import Deparser


class Calculation:
    """A named ``calculations[]`` entry: its input packer and hash algorithm."""

    def __init__(self, cg: CodeGen, doc: dict[str, Any], deparser: Deparser | None) -> None:
        self.name = str(doc.get("name"))
        self.algo = str(doc.get("algo"))
        self.inputs: list[dict[str, Any]] = list(doc.get("input", []))
        if self.algo not in hashes.HASHES and self.algo != "random":
            raise ProgramError(f"calculation {self.name}: unsupported algorithm {self.algo!r}")
        self._params: hashes.CrcParams | None = None
        self.deparser = deparser
        layout = cg.layout
        # Pack MSB-first into one integer, as hashes.pack_fields does (zero-pad on the right);
        # fields of invalid headers are skipped, consecutive fields share one validity test.
        groups: list[tuple[HeaderInfo | None, list[tuple[str, str]]]] = []
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
            elif kind == "hexstr":
                width = int(item.get("bitwidth", 0))
                terms = [(str(hexint(value, "calculation") & ((1 << width) - 1)), str(width))]
                h = None
            elif kind == "header":
                h = layout.header(str(value))
                terms = [(f"f[{h.base + i}]", str(w)) for i, (_, w, _) in enumerate(h.fields)]
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
        me = cg.const(self)
        # BMv2 computes a checksum before the deparser puts the headers back: the payload is
        # the bytes the parser left, not the headers emitted after this one
        tail = " + p.payload" if payload else ""
        pack = _pack_lines(cg, groups)
        self.data: Callable[[list[int], Pkt], bytes] = cg.function(
            cg.fresh("calc_"), "f, p", [*pack, f"return x{tail}"]
        )
        #: data and hash in one generated function (what actions and checksums call)
        self.h: Callable[[list[int], Pkt], int] = cg.function(
            cg.fresh("calc_"), "f, p", [*pack, f"return {me}._h(x{tail})"]
        )
        # HashAlgorithm.random: a (seeded) random value instead of a hash, as BMv2 does
        rng: Any = cg.ns.get("_rng")
        self._hash = hashes.HASHES.get(self.algo) or (lambda _data: rng.getrandbits(32))
        self._h: Callable[[bytes], int] = self._hash

    @property
    def params(self) -> hashes.CrcParams | None:
        """Custom CRC parameters (``set_crc16_parameters``...), or None: the algorithm's."""
        return self._params

    @params.setter
    def params(self, value: hashes.CrcParams | None) -> None:
        self._params = value
        self._h = self._hash if value is None else partial(hashes.crc, value)

    def __call__(self, f: list[int], p: Pkt) -> int:
        """The hash of this calculation's input for the current packet."""
        return self.h(f, p)


def _pack_lines(
    cg: CodeGen, groups: list[tuple[HeaderInfo | None, list[tuple[str, str]]]]
) -> list[str]:
    """Lines packing the groups' terms MSB-first into bytes ``x``, zero-padded on the right
    (as hashes.pack_fields). Groups of whole bytes: one struct pack each (skipped when its
    header is invalid); else a group of fixed widths is one shift-or expression, and
    without validity tests or varbits the whole length is a constant."""
    fixed = all(w.isdigit() for _, terms in groups for _, w in terms)
    if fixed and groups and all(sum(int(w) for _, w in ts) % 8 == 0 for _, ts in groups):
        return [f"x = {' + '.join(_struct_group(cg, guard, terms) for guard, terms in groups)}"]
    if fixed and all(guard is None for guard, _ in groups):
        terms = [t for _, ts in groups for t in ts]
        n = sum(int(w) for _, w in terms)
        k = -n % 8
        return [f"x = ({_packed(terms, k)}).to_bytes({(n + k) // 8}, _BIG)"]
    body = ["a = 0", "n = 0"]
    for guard, terms in groups:
        if all(w.isdigit() for _, w in terms):
            width = sum(int(w) for _, w in terms)
            lines = [f"a = (a << {width}) | {_packed(terms, 0)}", f"n += {width}"]
        else:
            lines = [f"a = (a << {w}) | {v}" for v, w in terms]
            lines.append(f"n += {' + '.join(w for _, w in terms)}")
        if guard is None:
            body += lines
        else:
            body += [f"if f[{guard.valid}]:", *["    " + ln for ln in lines]]
    return [*body, "k = -n % 8", "x = (a << k).to_bytes((n + k) // 8, _BIG)"]


def _struct_group(cg: CodeGen, guard: HeaderInfo | None, terms: list[tuple[str, str]]) -> str:
    """Source of one whole-bytes group's bytes (empty when its header is invalid)."""
    packer, args = unpack.pack([int(w) for _, w in terms], [v for v, _ in terms])
    packed = f"{cg.const(packer)}({', '.join(args)})"
    return packed if guard is None else f"({packed} if f[{guard.valid}] else _EMPTY)"


def _packed(terms: list[tuple[str, str]], pad: int) -> str:
    """One expression: fixed-width ``terms`` side by side, then ``pad`` zero bits."""
    shift, parts = pad + sum(int(w) for _, w in terms), []
    for value, width in terms:
        shift -= int(width)
        parts.append(f"({value} << {shift})" if shift else value)
    return " | ".join(parts) or "0"


class Checksums:
    """``checksums[]``: verified after parsing, updated before deparsing."""

    def __init__(self, cg: CodeGen, doc: list[dict[str, Any]], calcs: dict[str, Calculation]):
        layout = cg.layout
        #: (target slot, mask, calculation, condition) of every updated checksum (framereplay)
        self.update_list: list[tuple[int, int, Calculation, Any]] = []
        self.error_slot = layout.std["checksum_error"]
        verify: list[str] = []
        update: list[str] = []
        for c in doc:
            target: Any = c.get("target")
            slot, width, _ = layout.field(str(target[0]), str(target[1]))
            calc = calcs.get(str(c.get("calculation")))
            if calc is None:
                raise ProgramError(f"checksum {c.get('name')}: unknown calculation")
            cond, test = None, None
            if c.get("if_cond") is not None:
                test = cg.expr(c["if_cond"])
                cond = cg.function(cg.fresh("ck_"), "f, p", [f"return {test}"])
            item = (slot, (1 << width) - 1, calc, cond)
            value = f"({cg.const(calc)}.h(f, p) & {(1 << width) - 1})"
            if c.get("verify", True):
                ok = [f"if {value} != f[{slot}]:", f"    f[{self.error_slot}] = 1"]
                verify += ok if test is None else [f"if {test}:", *["    " + ln for ln in ok]]
            if c.get("update", True):
                self.update_list.append(item)
                put = [f"f[{slot}] = {value}"]
                update += put if test is None else [f"if {test}:", "    " + put[0]]
        #: verify and update as generated functions (one call per packet each)
        self.verify_fn: Callable[[list[int], Pkt], None] = cg.function(
            cg.fresh("ck_"), "f, p", verify
        )
        self.update_fn: Callable[[list[int], Pkt], None] = cg.function(
            cg.fresh("ck_"), "f, p", update
        )

    def verify(self, f: list[int], p: Pkt) -> None:
        """Set ``checksum_error`` when a verified checksum does not match."""
        self.verify_fn(f, p)

    def update(self, f: list[int], p: Pkt) -> None:
        """Recompute every updated checksum into its target field."""
        self.update_fn(f, p)
