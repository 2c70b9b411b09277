"""Load a BMv2 JSON program and lay its fields out in one flat per-packet slot list.

Every header field, every header's validity bit and every header stack's "next index"
gets an integer slot in a list ``f`` that the generated code indexes directly::

    f = [ eth.dst, eth.src, eth.type, eth.$valid$, ipv4.ver, ..., stk.$next$, hidden std ]
          └── header base ──────────┘   └ base + nfields = validity slot

Metadata headers are always valid. Standard metadata fields the program does not
declare (hand-written JSON) get hidden slots, so the switch can always write them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.errors import read_text
from emulator.target.errors import ProgramError

#: v1model standard_metadata fields simple_switch reads or writes, with their widths.
STD_FIELDS: dict[str, int] = {
    "ingress_port": 9,
    "egress_spec": 9,
    "egress_port": 9,
    "instance_type": 32,
    "packet_length": 32,
    "enq_timestamp": 32,
    "enq_qdepth": 19,
    "deq_timedelta": 32,
    "deq_qdepth": 19,
    "ingress_global_timestamp": 48,
    "egress_global_timestamp": 48,
    "mcast_grp": 16,
    "egress_rid": 16,
    "checksum_error": 1,
    "parser_error": 32,
    "priority": 3,
}

#: P4 core errors with the values p4c assigns (used when the JSON omits ``errors``).
CORE_ERRORS = {
    "NoError": 0,
    "PacketTooShort": 1,
    "NoMatch": 2,
    "StackOutOfBounds": 3,
    "HeaderTooShort": 4,
    "ParserTimeout": 5,
    "ParserInvalidArgument": 6,
}


@dataclass
class HeaderInfo:
    """One header (or metadata) instance and where its fields live in ``f``."""

    name: str
    id: int
    metadata: bool
    fields: list[tuple[str, int, bool]]  # (name, width, signed)
    base: int
    index: dict[str, int] = field(default_factory=dict)  # field name -> offset
    vl: int | None = None  # index of the variable-length (varbit) field, if any

    @property
    def valid(self) -> int:
        """Slot of the validity bit (right after the fields)."""
        return self.base + len(self.fields)

    @property
    def vl_len(self) -> int:
        """Slot holding the current bit length of the varbit field (after the validity bit)."""
        return self.base + len(self.fields) + 1

    @property
    def span(self) -> int:
        """Number of slots the header occupies (fields, validity, varbit length)."""
        return len(self.fields) + 1 + (self.vl is not None)

    @property
    def nbits(self) -> int:
        """Width in bits of the fixed-size fields (a varbit field counts as 0)."""
        return sum(w for i, (_, w, _) in enumerate(self.fields) if i != self.vl)


@dataclass
class StackInfo:
    """A header stack: its member headers (in index order) and its next-index slot."""

    name: str
    headers: list[HeaderInfo]
    next_slot: int


def load_json(program: dict[str, Any] | str | Path) -> dict[str, Any]:
    """Return the JSON document for ``program`` (a dict, or a path to a .json file)."""
    if isinstance(program, dict):
        return program
    path = Path(program)
    text = read_text(path, "program", ProgramError)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProgramError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise ProgramError(f"{path}: a BMv2 JSON program is an object, got {type(doc).__name__}")
    return doc


def need(obj: Any, key: str, where: str) -> Any:
    """``obj[key]`` or a ProgramError naming the JSON location."""
    if not isinstance(obj, dict) or key not in obj:
        raise ProgramError(f"BMv2 JSON: missing '{key}' in {where}")
    return obj[key]


def _header_types(doc: dict[str, Any]) -> dict[str, tuple[list[tuple[str, int, bool]], int | None]]:
    """Header type name -> (fields as (name, width, signed), index of the varbit field)."""
    types: dict[str, tuple[list[tuple[str, int, bool]], int | None]] = {}
    for ht in doc.get("header_types", []):
        name = need(ht, "name", "header_types[]")
        flds: list[tuple[str, int, bool]] = []
        vl: int | None = None
        for fd in need(ht, "fields", f"header type {name}"):
            if not isinstance(fd, list) or len(fd) < 2:
                raise ProgramError(f"BMv2 JSON: bad field {fd!r} in header type {name}")
            if fd[1] == "*" and vl is None and isinstance(ht.get("max_length"), int):
                vl = len(flds)
                flds.append((str(fd[0]), 0, False))
                continue
            if not isinstance(fd[1], int) or fd[1] <= 0:
                raise ProgramError(
                    f"BMv2 JSON: header type {name} field {fd[0]}: unsupported width {fd[1]!r}"
                )
            flds.append((str(fd[0]), int(fd[1]), bool(fd[2]) if len(fd) > 2 else False))
        if vl is not None:  # varbit: its maximum width is what the header can still hold
            fixed = sum(w for _, w, _ in flds)
            flds[vl] = (flds[vl][0], max(8, int(ht["max_length"]) * 8 - fixed), False)
        types[name] = (flds, vl)
    return types


class Layout:
    """Slot layout of every header, stack and standard metadata field of a program."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.headers: dict[str, HeaderInfo] = {}
        self.by_id: dict[int, HeaderInfo] = {}
        self.stacks: dict[str, StackInfo] = {}
        self.unions: dict[str, list[HeaderInfo]] = {}
        types = _header_types(doc)
        slot = 0
        for h in doc.get("headers", []):
            name = need(h, "name", "headers[]")
            tname = need(h, "header_type", f"header {name}")
            if tname not in types:
                raise ProgramError(f"BMv2 JSON: header {name}: unknown header type {tname}")
            flds, vl = types[tname]
            info = HeaderInfo(
                name,
                int(h.get("id", len(self.headers))),
                bool(h.get("metadata")),
                flds,
                slot,
                {fn: i for i, (fn, _, _) in enumerate(flds)},
                vl,
            )
            slot += info.span
            self.headers[name] = info
            self.by_id[info.id] = info
        for st in doc.get("header_stacks", []):
            name = need(st, "name", "header_stacks[]")
            try:
                members = [self.by_id[int(i)] for i in need(st, "header_ids", f"stack {name}")]
            except KeyError as exc:
                raise ProgramError(f"BMv2 JSON: stack {name}: unknown header id {exc}") from None
            self.stacks[name] = StackInfo(name, members, slot)
            slot += 1
        for un in doc.get("header_unions", []):
            name = need(un, "name", "header_unions[]")
            self.unions[name] = [self.by_id[int(i)] for i in un.get("header_ids", [])]
        from emulator.target.union_stacks import union_stacks  # it builds on this module

        self.union_stacks = union_stacks(doc, self, slot)
        slot += len(self.union_stacks)
        #: header name -> the other members of its header union (setValid invalidates them)
        self.union_siblings: dict[str, list[HeaderInfo]] = {
            h.name: [o for o in members if o is not h]
            for members in self.unions.values()
            for h in members
        }
        self.errors: dict[str, int] = dict(CORE_ERRORS)
        for item in doc.get("errors", []):
            self.errors[str(item[0])] = int(item[1])
        aliases = {str(a[0]): (str(a[1][0]), str(a[1][1])) for a in doc.get("field_aliases", [])}
        self.std: dict[str, int] = {}
        self.std_width: dict[str, int] = {}
        for fname, width in STD_FIELDS.items():
            found = self._find_std(fname, aliases)
            if found is None:
                self.std[fname] = slot
                self.std_width[fname] = width
                slot += 1
            else:
                self.std[fname], self.std_width[fname] = found
        self.nslots = slot
        template = [0] * slot
        for info in self.headers.values():
            if info.metadata:
                template[info.valid] = 1
        self.template = template
        self.metadata_slots = [
            s
            for info in self.headers.values()
            if info.metadata
            for s in range(info.base, info.valid)
        ]

    def _find_std(self, fname: str, aliases: dict[str, tuple[str, str]]) -> tuple[int, int] | None:
        candidates = [("standard_metadata", fname)]
        candidates += [v for k, v in aliases.items() if k.rsplit(".", 1)[-1] == fname]
        for hname, f in candidates:
            h = self.headers.get(hname)
            if h is not None and f in h.index:
                return h.base + h.index[f], h.fields[h.index[f]][1]
        return None

    def header(self, name: str) -> HeaderInfo:
        """The header instance called ``name``."""
        try:
            return self.headers[name]
        except KeyError:
            raise ProgramError(f"BMv2 JSON: unknown header instance '{name}'") from None

    def field(self, hname: str, fname: str) -> tuple[int, int, bool]:
        """``(slot, width, signed)`` of field ``hname.fname`` (``$valid$`` included)."""
        h = self.header(hname)
        if fname == "$valid$":
            return h.valid, 1, False
        if fname not in h.index:
            raise ProgramError(f"BMv2 JSON: header '{hname}' has no field '{fname}'")
        _, width, signed = h.fields[h.index[fname]]
        return h.base + h.index[fname], width, signed

    def stack(self, name: str) -> StackInfo:
        """The header stack called ``name``."""
        try:
            return self.stacks[name]
        except KeyError:
            raise ProgramError(f"BMv2 JSON: unknown header stack '{name}'") from None
