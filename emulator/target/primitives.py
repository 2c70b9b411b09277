"""Compile BMv2 actions (lists of primitive calls) into Python functions ``(f, p, d)``.

An action function returns True when it executed ``exit`` (the control flow stops).
Actions using ``_jump`` / ``_jump_if_zero`` (if-statements inside actions) become a
small program-counter loop; all others are straight-line code.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from emulator.target.codegen import CodeGen, HRef, lit
from emulator.target.errors import ProgramError
from emulator.target.externs import CounterArray, RegisterArray
from emulator.target.program import StackInfo
from emulator.target.union_stacks import union_copy, union_pop, union_push


class P4AssertionFailure(Exception):
    """A P4 ``assert``/``assume`` failed (BMv2 aborts; we drop the packet and record it)."""


@dataclass
class ActionEnv:
    """The stateful objects actions may reference, by JSON name."""

    registers: dict[str, Any] = field(default_factory=dict)
    counters: dict[str, Any] = field(default_factory=dict)
    meters: dict[str, Any] = field(default_factory=dict)
    calculations: dict[str, Callable[..., int]] = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)
    log: Callable[[str], None] = print


def _log_msg(log: Callable[[str], None], fmt: str, values: tuple[int, ...]) -> None:
    out, parts = [], fmt.split("{}")
    for i, part in enumerate(parts):
        out.append(part)
        if i < len(parts) - 1:
            out.append(str(values[i]) if i < len(values) else "{}")
    log("".join(out))


def _push(f: list[int], st: StackInfo, count: int) -> None:
    """``push_front(count)`` as BMv2: the elements rotate up by ``count`` (the last ones
    come round to the front) and the first ``count`` are made invalid, keeping the values
    they came round with (P4 leaves them unspecified; a table key can still read them)."""
    n = _rotate(f, st, min(count, len(st.headers)))
    for h in st.headers[:n]:
        f[h.valid] = 0
    f[st.next_slot] = min(f[st.next_slot] + count, len(st.headers))


def _pop(f: list[int], st: StackInfo, count: int) -> None:
    """``pop_front(count)`` as BMv2: the elements rotate down by ``count`` (the first ones
    come round to the back) and the last ``count`` are made invalid."""
    hs = st.headers
    n = -_rotate(f, st, -min(count, len(hs)))
    for h in hs[len(hs) - n :]:
        f[h.valid] = 0
    f[st.next_slot] = max(f[st.next_slot] - count, 0)


def _rotate(f: list[int], st: StackInfo, shift: int) -> int:
    """Element i of stack ``st`` gets the old element ``i - shift`` (mod its size)."""
    hs = st.headers
    span = hs[0].span
    saved = [f[h.base : h.base + span] for h in hs]
    for i, h in enumerate(hs):
        f[h.base : h.base + span] = saved[(i - shift) % len(hs)]
    return shift


class ActionCompiler:
    """Turns one JSON action into a Python function."""

    def __init__(self, cg: CodeGen, env: ActionEnv, std: dict[str, int]) -> None:
        self.cg, self.env, self.std = cg, env, std
        cg.ns.update(_push=_push, _pop=_pop, _AF=P4AssertionFailure, _logm=_log_msg)
        cg.ns.update(_upush=union_push, _upop=union_pop, _ucopy=union_copy)
        cg.ns["_rng"] = env.rng

    def compile(self, action: dict[str, Any]) -> Callable[..., Any]:
        """Compile ``action`` (a JSON ``actions[]`` item)."""
        name = str(action.get("name", "?"))
        prims = action.get("primitives", [])
        try:
            blocks = [self.primitive(p) for p in prims]
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ProgramError(f"BMv2 JSON: action {name}: malformed primitive ({exc})") from None
        except ProgramError as exc:
            raise ProgramError(f"action {name}: {exc}") from None
        fname = self.cg.fresh("act_")
        if not any(p.get("op") in ("_jump", "_jump_if_zero") for p in prims):
            body = [ln for b in blocks for ln in b]
            fn = self.cg.function(fname, "f, p, d", body)
            self.cg.bodies[fn] = tuple(body)
            return fn
        body = ["pc = 0", f"while pc < {len(prims)}:"]
        for i, (prim, block) in enumerate(zip(prims, blocks)):
            body.append(f"    {'if' if i == 0 else 'elif'} pc == {i}:")
            body += ["        " + ln for ln in block]
            body.append(f"        pc = {i + 1}")
            if prim["op"] == "_jump":
                body.append(f"        pc = {self._target(prim['parameters'][0])}")
            elif prim["op"] == "_jump_if_zero":
                cond = self.cg.expr(prim["parameters"][0])
                body.append(f"        if not {cond}:")
                body.append(f"            pc = {self._target(prim['parameters'][1])}")
        return self.cg.function(fname, "f, p, d", body)

    def _target(self, tv: dict[str, Any]) -> int:
        return int(self.cg.expr(tv).strip("()"))

    def primitive(self, prim: dict[str, Any]) -> list[str]:
        """Statements for one primitive call."""
        op = prim.get("op")
        ps = prim.get("parameters", [])
        for group in (self._assign, self._headers, self._control, self._externs, self._packet):
            out = group(op, ps)
            if out is not None:
                return out
        raise ProgramError(f"unsupported primitive {op!r}")

    def _assign(self, op: Any, ps: list[Any]) -> list[str] | None:
        """Field assignments."""
        cg = self.cg
        if op == "assign_VL":
            (d, _, _), (s, _, _) = cg.field_slot(ps[0]), cg.field_slot(ps[1])
            hd = cg.layout.header(str(ps[0]["value"][0]))
            hs = cg.layout.header(str(ps[1]["value"][0]))
            return [f"f[{d}] = f[{s}]", f"f[{hd.vl_len}] = f[{hs.vl_len}]"]
        if op in ("assign", "modify_field"):
            return cg.assign(ps[0], cg.expr(ps[1]))
        if op in ("add_to_field", "subtract_from_field"):
            sign = "+" if op == "add_to_field" else "-"
            return cg.assign(ps[0], f"({cg.expr(ps[0])} {sign} {cg.expr(ps[1])})")
        return None

    def _headers(self, op: Any, ps: list[Any]) -> list[str] | None:
        """Header validity, copies and stack operations."""
        cg = self.cg
        if op == "assign_header":
            return self._assign_header(cg.header_ref(ps[0]), cg.header_ref(ps[1]))
        if op == "assign_union":
            dst = cg.layout.unions[str(ps[0]["value"])]
            src = cg.layout.unions[str(ps[1]["value"])]
            out: list[str] = []
            for hd, hs in zip(dst, src):
                out += self._copy_header(HRef(hd, str(hd.base)), HRef(hs, str(hs.base)))
            return out
        if op == "assign_header_stack":
            sd, ss = cg.layout.stack(ps[0]["value"]), cg.layout.stack(ps[1]["value"])
            out = [f"f[{sd.next_slot}] = f[{ss.next_slot}]"]
            for hd, hs in zip(sd.headers, ss.headers):
                out += self._copy_header(HRef(hd, str(hd.base)), HRef(hs, str(hs.base)))
            return out
        if op == "assign_union_stack":
            ud, us = (cg.layout.union_stacks.get(str(x.get("value"))) for x in ps[:2])
            if ud is None or us is None:
                raise ProgramError(f"unknown header union stack in {ps!r}")
            return [f"_ucopy(f, {cg.const(ud)}, {cg.const(us)})"]
        if op in ("add_header", "setValid", "remove_header", "setInvalid"):
            return self._validity(op in ("add_header", "setValid"), cg.header_ref(ps[0]))
        if op in ("push", "pop") and ps[0].get("type") == "header_union_stack":
            us = cg.layout.union_stacks.get(str(ps[0]["value"]))
            if us is None:
                raise ProgramError(f"unknown header union stack {ps[0]['value']!r}")
            return [f"_u{op}(f, {cg.const(us)}, {cg.expr(ps[1])})"]
        if op in ("push", "pop"):
            st = cg.layout.stack(str(ps[0]["value"]))
            return [f"_{op}(f, {cg.const(st)}, {cg.expr(ps[1])})"]
        return None

    def _control(self, op: Any, ps: list[Any]) -> list[str] | None:
        """Drop, exit and the jumps (handled by the action's dispatch loop)."""
        std = self.std
        if op in ("mark_to_drop", "drop"):
            return [f"f[{std['egress_spec']}] = 511", f"f[{std['mcast_grp']}] = 0"]
        if op == "exit":
            return ["p.exit = True", "return True"]
        if op in ("_jump", "_jump_if_zero", "no_op", "NoAction"):
            return []
        return None

    def _externs(self, op: Any, ps: list[Any]) -> list[str] | None:
        """Counters, meters, registers, hashes and random numbers."""
        cg, std = self.cg, self.std
        if op == "count":
            obj = self._obj(self.env.counters, ps[0], "counter")
            name, idx, length = cg.const(obj), cg.expr(ps[1]), f"f[{std['packet_length']}]"
            call = f"{name}.count({idx}, {length})"
            if isinstance(obj, CounterArray):
                cg.externs[call] = (obj, "count", (name, idx, length))
            return [call]
        if op == "execute_meter":  # an index out of range leaves the destination alone
            mtr = cg.const(self._obj(self.env.meters, ps[0], "meter"))
            colour = cg.fresh("mcol_")
            call = f"{mtr}.execute({cg.expr(ps[1])}, f[{std['packet_length']}])"
            sets = cg.assign(ps[2], colour)
            return [f"{colour} = {call}", f"if {colour} is not None:", *["    " + x for x in sets]]
        if op == "register_read":
            obj = self._obj(self.env.registers, ps[1], "register")
            name, idx, old = cg.const(obj), cg.expr(ps[2]), cg.expr(ps[0])
            call = f"{name}.read({idx}, {old})"  # out of range: the destination unchanged
            if isinstance(obj, RegisterArray):
                cg.externs[call] = (obj, "read", (name, idx, old))
            return cg.assign(ps[0], call)
        if op == "register_write":
            obj = self._obj(self.env.registers, ps[0], "register")
            name, idx, value = cg.const(obj), cg.expr(ps[1]), cg.expr(ps[2])
            call = f"{name}.write({idx}, {value})"
            if isinstance(obj, RegisterArray):
                cg.externs[call] = (obj, "write", (name, idx, value))
            return [call]
        if op == "modify_field_with_hash_based_offset":
            calc = cg.const(self._obj(self.env.calculations, ps[2], "calculation"))
            base, size = cg.expr(ps[1]), cg.expr(ps[3])
            return cg.assign(ps[0], f"({base} + {calc}.h(f, p) % ({size} or 1))")
        if op == "modify_field_rng_uniform":
            lo, hi = cg.expr(ps[1]), cg.expr(ps[2])
            return cg.assign(ps[0], f"_rng.randint(min({lo}, {hi}), max({lo}, {hi}))")
        return None

    def _packet(self, op: Any, ps: list[Any]) -> list[str] | None:
        """Per-packet requests: clone, resubmit, digest, log, assert, shifts."""
        cg = self.cg
        if op in ("clone_ingress_pkt_to_egress", "clone_egress_pkt_to_egress"):
            fl = cg.expr(ps[1]) if len(ps) > 1 else "None"
            return [f"p.clone_session = {cg.expr(ps[0])}", f"p.clone_fl = {fl}"]
        if op in ("resubmit", "resubmit_preserving_field_list"):
            return [f"p.resubmit_fl = {cg.expr(ps[0]) if ps else lit(0)}"]
        if op in ("recirculate", "recirculate_preserving_field_list"):
            return [f"p.recirc_fl = {cg.expr(ps[0]) if ps else lit(0)}"]
        if op == "generate_digest":
            return [f"p.digest = {cg.expr(ps[1])}", f"p.digest_receiver = {cg.expr(ps[0])}"]
        if op == "truncate":
            # BMv2 keeps the smallest length asked for (0 included), ingress and egress
            n = cg.fresh("trunc_")
            return [
                f"{n} = {cg.expr(ps[0])}",
                f"if p.truncate < 0 or {n} < p.truncate:",
                f"    p.truncate = {n}",
            ]
        if op == "log_msg":
            fmt = cg.const(str(ps[0].get("value", "")))
            vals = [cg.expr(v) for v in (ps[1].get("value", []) if len(ps) > 1 else [])]
            log = cg.const(self.env.log)
            return [f"_logm({log}, {fmt}, ({', '.join([*vals, ''])}))"]
        if op in ("assert", "assume"):
            what = cg.const(f"{op} failed")
            return [f"if not {cg.expr(ps[0])}:", f"    raise _AF({what})"]
        if op in ("shift_left", "shift_right"):
            sym = "<<" if op == "shift_left" else ">>"
            return cg.assign(ps[0], f"({cg.expr(ps[1])} {sym} {cg.expr(ps[2])})")
        return None

    def _validity(self, valid: bool, ref: HRef) -> list[str]:
        """``add_header``/``remove_header`` as BMv2 does them: only a change of validity
        counts; a header made valid has every field zeroed, and the packet-length register
        (what egress reads as ``packet_length``) grows or shrinks by the header's bytes."""
        cg, h = self.cg, ref.proto
        base = ref.base
        lines: list[str] = []
        if not base.isdigit():  # a stack member chosen at run time: its base slot, once
            base = cg.fresh("hbase_")
            lines.append(f"{base} = {ref.base}")
        at = HRef(h, base)
        nbytes = f"{h.nbits // 8}" + (
            f" + (f[{at.slot(h.span - 1)}] >> 3)" if h.vl is not None else ""
        )
        if valid:
            zeros = cg.const((0,) * len(h.fields))
            lines += [f"if not f[{at.valid}]:", f"    f[{at.slot(0)}:{at.valid}] = {zeros}"]
            if not h.metadata:
                lines.append(f"    p.length_register += {nbytes}")
            others = cg.layout.union_siblings.get(h.name, []) if ref.base.isdigit() else []
            return [*lines, f"f[{at.valid}] = 1", *[f"f[{o.valid}] = 0" for o in others]]
        if not h.metadata:
            lines += [f"if f[{at.valid}]:", f"    p.length_register -= {nbytes}"]
        return [*lines, f"f[{at.valid}] = 0"]

    def _assign_header(self, dst: HRef, src: HRef) -> list[str]:
        """A header copy; as BMv2's ``mark_valid``, a union member made valid by it
        invalidates the union's other members."""
        out = self._copy_header(dst, src)
        siblings = self.cg.layout.union_siblings
        others = siblings.get(dst.proto.name, []) if dst.base.isdigit() else []
        if others:
            out += [f"if f[{dst.valid}]:", *[f"    f[{o.valid}] = 0" for o in others]]
        return out

    def _copy_header(self, dst: HRef, src: HRef) -> list[str]:
        span = dst.proto.span
        if dst.base.isdigit() and src.base.isdigit():
            d0, s0 = int(dst.base), int(src.base)
            return [f"f[{d0}:{d0 + span}] = f[{s0}:{s0 + span}]"]
        return [
            f"b0 = {dst.base}",
            f"b1 = {src.base}",
            f"f[b0:b0 + {span}] = f[b1:b1 + {span}]",
        ]

    @staticmethod
    def _obj(table: dict[str, Any], tv: dict[str, Any], what: str) -> Any:
        name = str(tv.get("value"))
        if name not in table:
            raise ProgramError(f"unknown {what} '{name}'")
        return table[name]
