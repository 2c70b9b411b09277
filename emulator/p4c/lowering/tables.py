"""Tables: keys, action lists, default actions, const entries, action profiles/selectors and
direct counters/meters, lowered to a BMv2 pipeline ``tables`` entry."""

from __future__ import annotations

from typing import Any

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import ast as A
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.ast import expr_text
from emulator.p4c.frontend.env import source_info
from emulator.p4c.frontend.values import RV, Const, ObjRef, hexstr, mask
from emulator.p4c.lowering.context import Ctx
from emulator.p4c.lowering.exprs import coerce, const_int, lower, scalar

MATCH_RANK = {"exact": 0, "lpm": 1, "ternary": 2, "range": 3}


def simple_key(v: Any) -> bool:
    """Keys BMv2 matches directly: a field or a header's validity bit."""
    j = v.json if isinstance(v, RV) else None
    if j is not None and j.get("type") == "expression" and j["value"].get("op") == "d2b":
        j = j["value"]["right"]
    return j is not None and j.get("type") == "field"


def cp_name(prefix: str, name: str, annos: A.Annotations) -> str:
    """Control-plane name: ``@name`` wins (a leading dot makes it absolute)."""
    n = A.anno(annos, "name")
    if n and isinstance(n[0], str):
        if n[0].startswith("."):
            return n[0][1:]
        return f"{prefix}.{n[0]}" if prefix else n[0]
    return f"{prefix}.{name}" if prefix else name


def key_name(k: A.KeyElement) -> str:
    """A key's control-plane name: its ``@name``, else its text; ``h.isValid()`` is
    ``h.$valid$``, as p4c-bm2-ss names it in the JSON and the P4Info."""
    name = A.anno(k.annotations, "name")
    if name:
        return str(name[0])
    e = k.expr
    call = e if isinstance(e, A.Call) and not e.args and not e.type_args else None
    if call is not None and isinstance(call.func, A.Member) and call.func.name == "isValid":
        return f"{expr_text(call.func.expr)}.$valid$"
    return expr_text(e)


def unnamed_part(e: A.Expr) -> A.Expr | None:
    """The first part of key expression ``e``, inner parts first, that p4c cannot name
    without ``@name`` (its KeyNameGenerator names names, fields, stack indices, constants,
    slices, ``&`` and ``isValid()``, and refuses the rest: "Complex key expression requires
    a @name annotation"); None when it can name all of ``e``."""
    parts: list[A.Expr]
    if isinstance(e, A.Name | A.IntLit):
        return None
    if isinstance(e, A.Member):
        parts = [e.expr]
    elif isinstance(e, A.Index):
        parts = [e.expr, e.index]
    elif isinstance(e, A.Slice):
        parts = [e.expr, e.hi, e.lo]
    elif isinstance(e, A.Binary) and e.op == "&":
        parts = [e.left, e.right]
    elif isinstance(e, A.Call) and not e.args and isinstance(e.func, A.Member):
        return unnamed_part(e.func.expr) or (None if e.func.name == "isValid" else e)
    else:
        inner = [c for c in A.children(e) if isinstance(c, A.Expr)]
        return next((u for c in inner if (u := unnamed_part(c)) is not None), e)
    return next((u for c in parts if (u := unnamed_part(c)) is not None), None)


class TableBuilder:
    """Builds one table's JSON (everything except its next-node links)."""

    def __init__(self, ctx: Ctx, decl: A.TableDecl, name: str, pipeline: dict[str, Any]) -> None:
        self.ctx = ctx
        self.decl = decl
        self.name = name
        self.pipeline = pipeline
        self.keys: list[dict[str, Any]] = []
        self.key_info: list[tuple[str, int]] = []  # (match kind, width)
        self.key_shift: list[tuple[int, int]] = []  # (slice low bit, field width) for slice keys
        self.selector_inputs: list[dict[str, Any]] = []
        self.action_names: list[str] = []
        self.action_ids: list[int] = []
        self.json: dict[str, Any] = {}
        self.key_temps: dict[int, RV] = {}  # key element id -> temporary holding its value

    # -------------------------------------------------------------- keys
    def _key(self, k: A.KeyElement) -> None:
        env = self.ctx.env
        if k.match_kind not in env.match_kinds:
            raise CompileError(k.pos, f"unknown match kind '{k.match_kind}'")
        part = None if A.anno(k.annotations, "name") else unnamed_part(k.expr)
        if part is not None:
            raise CompileError(
                part.pos, f"{expr_text(part)}: Complex key expression requires a @name annotation"
            )
        kname = key_name(k)
        msk: int | None = None
        lo = 0
        e = k.expr
        v: RV | Const
        if id(k) in self.key_temps:
            v = self.key_temps[id(k)]
            w = T.width_of(v.type) or 0
        elif isinstance(e, A.Slice):
            base = scalar(lower(e.expr, self.ctx), e.pos)
            hi, lo = (
                const_int(e.hi, self.ctx, "slice bound"),
                const_int(e.lo, self.ctx, "slice bound"),
            )
            v = base
            w = T.width_of(base.type) or 0
            if not 0 <= lo <= hi < w:
                raise CompileError(e.pos, f"slice [{hi}:{lo}] out of range for {w}-bit value")
            msk = mask(hi - lo + 1) << lo
        else:
            v = scalar(lower(e, self.ctx), e.pos)
            w = T.width_of(v.type) or 0
        j = v.json if isinstance(v, RV) else None
        if j is not None and j.get("type") == "expression" and j["value"].get("op") == "d2b":
            j = j["value"]["right"]
            w = 1
        if j is None or j.get("type") != "field":
            raise CompileError(
                k.pos, "table keys must be fields, slices of fields or isValid() (use a temporary)"
            )
        if k.match_kind == "selector":
            self.selector_inputs.append({"type": "field", "value": j["value"]})
            return
        mk = "ternary" if k.match_kind == "optional" else k.match_kind
        if mk not in MATCH_RANK:
            raise CompileError(k.pos, f"match kind '{k.match_kind}' is not supported by BMv2")
        self.keys.append(
            {
                "match_type": mk,
                "name": kname,
                "target": j["value"],
                "mask": hexstr(msk, w) if msk is not None else None,
            }
        )
        self.key_info.append((mk, w if msk is None else hi - lo + 1))  # type: ignore[possibly-undefined]
        self.key_shift.append((lo, w))

    # -------------------------------------------------------------- actions
    def _actions(self, refs: tuple[A.ActionRef, ...], emit_action: Any) -> None:
        for r in refs:
            aname, aid, _, _ = emit_action(r)
            if aname in self.action_names:
                raise CompileError(r.pos, f"action '{aname}' listed twice in table {self.name}")
            self.action_names.append(aname)
            self.action_ids.append(aid)
            for scope in ("defaultonly", "tableonly"):  # for _check_scope and the P4Info
                if A.anno(r.annotations, scope) is not None:
                    self.ctx.env.action_scopes.setdefault(self.name, {})[aname] = scope

    def _check_scope(self, aname: str, default: bool, pos: Pos) -> None:
        """``@defaultonly`` actions only as the default action, ``@tableonly`` never."""
        scope = self.ctx.env.action_scopes.get(self.name, {}).get(aname)
        if scope == ("tableonly" if default else "defaultonly"):
            where = "as the default action" if default else "in entries"
            raise CompileError(
                pos, f"action {aname} is @{scope}: it cannot be used {where} of table {self.name}"
            )

    def _action_data(
        self, r: A.ActionRef, emit_action: Any, pos: Pos
    ) -> tuple[str, int, list[str]]:
        aname, aid, types, nbound = emit_action(r, data=True)
        if aname not in self.action_names:
            raise CompileError(
                pos, f"action '{aname}' is not in the actions list of table {self.name}"
            )
        if aid not in self.action_ids:
            raise CompileError(
                pos,
                f"action '{aname}': its out/inout arguments are bound differently in the "
                f"actions list of table {self.name}",
            )
        vals = []
        data_args = r.args[nbound:]
        if len(data_args) != len(types):
            raise CompileError(
                pos, f"action '{aname}' expects {len(types)} arguments, got {len(data_args)}"
            )
        for a, t in zip(data_args, types, strict=True):
            c, w = lower(a.value, self.ctx, t), t.width
            if not isinstance(c, Const):
                raise CompileError(a.value.pos, "action arguments here must be constants")
            c = (
                coerce(c, t, a.value.pos, "action argument")
                if isinstance(c.type, T.Bits | T.InfInt)
                else c
            )
            vals.append(hexstr(c.value & mask(w), w))  # type: ignore[union-attr,attr-defined]
        return aname, aid, vals

    # -------------------------------------------------------------- build
    def build(self, emit_action: Any, resolve_instance: Any) -> dict[str, Any]:
        d = self.decl
        env = self.ctx.env
        kp = d.prop("key")
        for k in kp.value if kp else ():  # type: ignore[union-attr,attr-defined]
            self._key(k)
            if k.match_kind == "lpm" and [m for m, _ in self.key_info].count("lpm") > 1:
                raise CompileError(k.pos, f"table {self.name} has several lpm keys (BMv2: one)")
        ap = d.prop("actions")
        if ap is None:
            raise CompileError(d.pos, f"table {d.name} has no actions property")
        self._actions(ap.value, emit_action)  # type: ignore[arg-type]
        size = 1024
        sp = d.prop("size")
        if sp is not None:
            size = const_int(sp.value, self.ctx, "table size")  # type: ignore[arg-type]
        ttype, profile = self._implementation(resolve_instance)
        default = d.prop("default_action")
        if ttype == "simple" and default is None and "NoAction" not in self.action_names:
            # as p4c: a table without a default action misses with NoAction (an action of
            # its own, so a switch on action_run takes none of the listed actions' cases)
            self._actions((A.ActionRef(d.pos, A.Name(d.pos, "NoAction"), ()),), emit_action)
        with_counters = self._direct_counters(resolve_instance)
        direct_meter = self._direct_meters(resolve_instance, size)
        timeout = False
        tp = d.prop("support_timeout")
        if tp is not None:
            tv = lower(tp.value, self.ctx)  # type: ignore[arg-type]
            timeout = isinstance(tv, Const) and bool(tv.value)
        ranks = [MATCH_RANK[m] for m, _ in self.key_info]
        match_type = {0: "exact", 1: "lpm", 2: "ternary", 3: "range"}[max(ranks, default=0)]
        j: dict[str, Any] = {
            "name": self.name,
            "id": env.table_id,
            "source_info": source_info(d.pos, d.name),
            "key": self.keys,
            "match_type": match_type,
            "type": ttype,
            "max_size": size,
            "with_counters": with_counters,
            "support_timeout": timeout,
            "direct_meters": direct_meter,
            "action_ids": self.action_ids,
            "actions": self.action_names,
            "base_default_next": None,
            "next_tables": {},
        }
        env.table_id += 1
        if profile is not None:
            j["action_profile"] = profile
        if ttype == "simple":
            self._default_entry(j, emit_action)
        self._entries(j, emit_action)
        self.json = j
        return j

    def _implementation(self, resolve_instance: Any) -> tuple[str, str | None]:
        """The table type and action profile its ``implementation`` property gives."""
        d = self.decl
        ip = d.prop("implementation")
        if ip is not None:
            inst = resolve_instance(ip.value, self.name)
            if inst.extra["type"] not in ("action_profile", "action_selector"):
                raise CompileError(
                    ip.pos, "implementation must be an action_profile or action_selector"
                )
            profile = self._profile(inst, ip.pos)
            return "indirect_ws" if inst.extra["type"] == "action_selector" else "indirect", profile
        if self.selector_inputs:
            raise CompileError(
                d.pos, f"table {d.name} has selector keys but no action_selector implementation"
            )
        return "simple", None

    def _direct_counters(self, resolve_instance: Any) -> bool:
        """Bind the ``counters`` direct_counter, if any; whether there is one."""
        cp = self.decl.prop("counters")
        if cp is None:
            return False
        inst = resolve_instance(cp.value, self.name)
        if inst.extra["type"] != "direct_counter":
            raise CompileError(cp.pos, "counters must be a direct_counter")
        arr = self.ctx.env.out["counter_arrays"]
        arr.append(
            {
                "name": inst.name,
                "id": len(arr),
                "source_info": source_info(cp.pos, "counters"),
                "is_direct": True,
                "binding": self.name,
            }
        )
        return True

    def _direct_meters(self, resolve_instance: Any, size: int) -> str | None:
        """Bind the ``meters`` direct_meter, if any; its name."""
        mp = self.decl.prop("meters")
        if mp is None:
            return None
        inst = resolve_instance(mp.value, self.name)
        if inst.extra["type"] != "direct_meter":
            raise CompileError(mp.pos, "meters must be a direct_meter")
        if inst.extra.get("result_target") is None:
            raise CompileError(
                mp.pos,
                f"direct_meter {inst.name} is never read into a field "
                "(call its read(...) in an action of this table)",
            )
        arr = self.ctx.env.out["meter_arrays"]
        arr.append(
            {
                "name": inst.name, "id": len(arr), "source_info": source_info(mp.pos, "meters"),
                "is_direct": True, "rate_count": 2, "type": inst.extra.get("kind", "packets"),
                "size": size, "binding": self.name, "result_target": inst.extra.get("result_target"),
            }
        )  # fmt: skip
        return str(inst.name)

    def _default_entry(self, j: dict[str, Any], emit_action: Any) -> None:
        dp = self.decl.prop("default_action")
        if dp is not None:
            aname, aid, vals = self._action_data(dp.value, emit_action, dp.pos)  # type: ignore[arg-type]
            self._check_scope(aname, True, dp.pos)
            j["default_entry"] = {
                "action_id": aid,
                "action_const": dp.const,
                "action_data": vals,
                "action_entry_const": dp.const,
            }
        elif "NoAction" in self.action_names:
            aid = self.action_ids[self.action_names.index("NoAction")]
            j["default_entry"] = {
                "action_id": aid,
                "action_const": False,
                "action_data": [],
                "action_entry_const": False,
            }

    def _entries(self, j: dict[str, Any], emit_action: Any) -> None:
        ep = self.decl.prop("entries")
        if ep is None:
            return
        for e in ep.value if ep.const else ():  # type: ignore[attr-defined]
            if e.priority is not None:
                raise CompileError(
                    e.pos,
                    "'const entries' cannot have priorities (p4c refuses them): "
                    "use 'entries', or list the const entries highest priority first",
                )
        # p4c-bm2-ss 1.2.4.8 numbers entries by position whatever their `priority =`
        # (it warns when those are out of order), so simple_switch tries them in order
        entries = [self._entry(e, i, emit_action) for i, e in enumerate(ep.value)]  # type: ignore[arg-type,var-annotated]
        self._check_priorities(ep.value)  # type: ignore[arg-type]
        j["entries"] = entries

    def _profile(self, inst: ObjRef, pos: Pos) -> str:
        profiles = self.pipeline["action_profiles"]
        for p in profiles:
            if p["name"] == inst.name:
                return inst.name
        env = self.ctx.env
        entry: dict[str, Any] = {
            "name": inst.name,
            "id": env.profile_id,
            "source_info": source_info(pos, inst.name),
            "max_size": inst.extra["size"],
        }
        env.profile_id += 1
        if inst.extra["type"] == "action_selector":  # no selector keys: p4c only warns
            entry["selector"] = {"algo": inst.extra["algo"], "input": self.selector_inputs}
        profiles.append(entry)
        return inst.name

    def _entry(self, e: A.Entry, i: int, emit_action: Any) -> dict[str, Any]:
        if len(e.keys) != len(self.keys):
            raise CompileError(
                e.pos,
                f"entry has {len(e.keys)} key values but table {self.name} has {len(self.keys)} keys",
            )
        mk = [
            self._shift(self._entry_key(k, mt, w), sh, w)
            for k, (mt, w), sh in zip(e.keys, self.key_info, self.key_shift, strict=True)
        ]
        aname, aid, vals = self._action_data(e.action, emit_action, e.action.pos)
        self._check_scope(aname, False, e.action.pos)
        prio = _annotated_priority(e, i + 1)
        return {
            "source_info": source_info(e.pos, "entry"),
            "match_key": mk,
            "action_entry": {"action_id": aid, "action_data": vals},
            "priority": prio,
        }

    def _check_priorities(self, decls: tuple[A.Entry, ...]) -> None:
        """Explicit priorities must be constants (their order is the listing order). Once
        one entry has one, an entry without one takes the one before it less 1, as p4c
        1.2.4.8 computes them (it knows no ``priority_delta``): refused before any entry
        with a priority ("Entry must have a priority") and below 1 ("Overflow in priority
        computation")."""
        given = [const_int(e.priority, self.ctx, "entry priority") if e.priority else None
                 for e in decls]  # fmt: skip
        if all(p is None for p in given):
            return
        cur: int | None = None
        for e, p in zip(decls, given, strict=True):
            if p is not None:
                cur = p
                continue
            if cur is None:
                raise CompileError(
                    e.pos,
                    f"entry must have a priority: other entries of table {self.name} have one",
                )
            cur -= 1
            if cur < 1:
                raise CompileError(
                    e.pos,
                    f"table {self.name}: the priority this entry takes (the one before "
                    "it less 1) is below 1 (p4c: Overflow in priority computation)",
                )

    @staticmethod
    def _shift(mk: dict[str, Any], sh: tuple[int, int], w: int) -> dict[str, Any]:
        """Entry values of a slice key are placed at the slice position in the whole field."""
        lo, fw = sh
        if lo == 0 and fw == w:
            return mk
        for k in ("key", "mask", "start", "end"):
            if k in mk:
                mk[k] = hexstr(int(mk[k], 16) << lo, fw)
        if mk["match_type"] == "ternary" and "mask" not in mk:
            mk["mask"] = hexstr(mask(w) << lo, fw)
        if mk["match_type"] == "lpm":
            mk["prefix_length"] += fw - w - lo
        return mk

    def _val(self, e: A.Expr, w: int) -> int:
        v = lower(e, self.ctx, T.Bits(w))
        if not isinstance(v, Const):
            raise CompileError(e.pos, "entry keys must be constants")
        if isinstance(v.type, T.Bits | T.InfInt):
            v = coerce(v, T.Bits(w), e.pos, "key value")  # type: ignore[assignment]
        return v.value & mask(w)  # type: ignore[attr-defined]

    def _entry_key(self, k: A.Expr, mt: str, w: int) -> dict[str, Any]:
        dc = isinstance(k, A.DontCare | A.Default)
        if mt == "exact":
            if dc:
                raise CompileError(k.pos, "'_' is not allowed for an exact key")
            return {"match_type": "exact", "key": hexstr(self._val(k, w), w)}
        if isinstance(k, A.Binary) and k.op == "&&&":
            v, m = self._val(k.left, w), self._val(k.right, w)
        elif isinstance(k, A.Binary) and k.op == "..":
            if mt != "range":
                raise CompileError(k.pos, "'..' is only allowed for range keys")
            return {
                "match_type": "range",
                "start": hexstr(self._val(k.left, w), w),
                "end": hexstr(self._val(k.right, w), w),
            }
        elif dc:
            v, m = 0, 0
        else:
            v, m = self._val(k, w), mask(w)
        if mt == "range":
            if m == mask(w):
                return {"match_type": "range", "start": hexstr(v, w), "end": hexstr(v, w)}
            if m == 0:
                return {"match_type": "range", "start": hexstr(0, w), "end": hexstr(mask(w), w)}
            raise CompileError(k.pos, "a range key needs lo..hi, a value or _")
        if mt == "lpm":
            plen = bin(m).count("1")
            if m != (mask(plen) << (w - plen)):
                raise CompileError(k.pos, "lpm mask must be a prefix")
            return {"match_type": "lpm", "key": hexstr(v & m, w), "prefix_length": plen}
        return {"match_type": "ternary", "key": hexstr(v & m, w), "mask": hexstr(m, w)}


def _annotated_priority(e: A.Entry, by_position: int) -> int:
    """An entry's ``@priority(N)`` (p4c-bm2-ss writes N as is), else its position from 1."""
    for name, args in e.annotations:
        if name == "priority":
            if len(args) != 1 or not isinstance(args[0], int) or isinstance(args[0], bool):
                raise CompileError(e.action.pos, "@priority needs one integer, e.g. @priority(3)")
            return args[0]
    return by_position
