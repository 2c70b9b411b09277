"""Frame layouts and key trees for :mod:`.framereplay` (whole-switch replay).

A :class:`Shape` says where one parse path put each header field in the frame; a
:class:`KeyNode` tree files outcomes OVS-style under the frame bytes and slots a run read
(one subtable per read signature), with :class:`.flowcache.Branch` nodes where the run
looked at a lazy input (time, queue depth, register).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emulator.target.flowcache import Branch, Recorder
from emulator.target.program import HeaderInfo

#: a field's place in the frame: (slot, first byte, end byte, shift, mask, whole bytes)
Place = tuple[int, int, int, int, int, bool]


class ReadLog(list[int]):
    """A slot list noting every slot read."""

    def __init__(self, f: list[int]) -> None:
        super().__init__(f)
        self.reads: dict[int, None] = {}

    def __getitem__(self, i: Any) -> Any:
        self.reads[i] = None
        return list.__getitem__(self, i)


class ParsePath:
    """What one parse path (its states' JSON) reads, extracts and sets besides headers."""

    __slots__ = ("extracts", "reads", "sets")

    def __init__(self, layout: Any, hdr_slots: dict[int, HeaderInfo], docs: list[Any]) -> None:
        self.extracts: list[HeaderInfo] = []
        sets: list[int] = []
        reads: list[int] = []
        for doc in docs:
            for op in doc.get("parser_ops", []):
                if op.get("op") == "extract":
                    self.extracts.append(layout.header(str(op["parameters"][0]["value"])))
                elif op.get("op") == "set":
                    sets += [s for s in field_slots(layout, op["parameters"][0])]
            reads += field_slots(layout, doc)
        self.sets = tuple(dict.fromkeys(s for s in sets if s not in hdr_slots))
        self.reads = list(dict.fromkeys(reads))


def field_slots(layout: Any, node: Any) -> list[int]:
    """Slots of every field reference (``{"type": "field", "value": [h, f]}``) in ``node``."""
    if isinstance(node, list):
        return [s for x in node for s in field_slots(layout, x)]
    if not isinstance(node, dict):
        return []
    value = node.get("value")
    if node.get("type") == "field" and isinstance(value, list) and len(value) == 2:
        return [layout.field(str(value[0]), str(value[1]))[0]]
    return [s for v in node.values() for s in field_slots(layout, v)]


class Shape:
    """Where one parse path put each header field in the frame."""

    __slots__ = ("end", "fields", "valid")

    def __init__(self, headers: list[HeaderInfo]) -> None:
        self.fields: dict[int, Place] = {}
        self.valid = tuple(h.valid for h in headers)
        bit = 0
        for h in headers:
            for i, (_, width, _) in enumerate(h.fields):
                a, b = bit // 8, (bit + width + 7) // 8
                shift = b * 8 - bit - width
                whole = shift == 0 and bit % 8 == 0 and width % 8 == 0
                self.fields[h.base + i] = (h.base + i, a, b, shift, (1 << width) - 1, whole)
                bit += width
        self.end = bit // 8


class KeyNode:
    """OVS-style subtables: (getter over frame and f, {key: child}) per read signature."""

    __slots__ = ("by_sig", "subtables")

    def __init__(self) -> None:
        self.subtables: list[tuple[Callable[[bytes, list[int]], Any], dict[Any, Any]]] = []
        self.by_sig: dict[Any, tuple[Callable[[bytes, list[int]], Any], dict[Any, Any]]] = {}

    def subtable(self, sig: Any, getters: dict[Any, Any]) -> tuple[Any, dict[Any, Any]]:
        """The subtable of signature ``sig`` = (end, byte ranges, f slots), new if needed;
        ``getters`` holds the key functions already made, by signature."""
        st = self.by_sig.get(sig)
        if st is None:
            getter = getters.get(sig)
            if getter is None:
                getter = getters[sig] = key_getter(*sig)
            st = self.by_sig[sig] = (getter, {})
            self.subtables.append(st)
        return st


def key_getter(end: int, ranges: tuple[tuple[int, int], ...], slots: tuple[int, ...]) -> Any:
    """Key function of one subtable: the frame's bytes in ``ranges`` (concatenated), ``f``
    at ``slots`` (and whether the frame is ``end`` bytes long). One tuple at most per
    call: keys are made for every packet, and each tracked object made counts towards the
    garbage collector's next run."""
    parts = [f"len(fr) >= {int(end)}"] if end else []
    if ranges:
        parts.append(" + ".join(f"fr[{int(a)}:{int(b)}]" for a, b in ranges))
    parts += [f"f[{int(s)}]" for s in slots]
    if not parts:
        parts.append("()")
    body = parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"
    src = f"lambda fr, f: {body}"
    fn = _GETTERS.get(src)
    if fn is None:
        fn = _GETTERS[src] = eval(compile(src, "<framekeys>", "eval"), {})  # ints only
    return fn


_GETTERS: dict[str, Any] = {}  # key functions by source (shared by every switch)


def lookup(node: Any, fr: bytes, f: list[int]) -> Any:
    """The leaf this frame and slot list reach, or None.

    Below a :class:`.flowcache.Branch` the next thing may sit directly (no
    :class:`KeyNode`) where the run read nothing between two lazy looks (see ``store``)."""
    while node is not None:
        if type(node) is KeyNode:
            for getter, table in node.subtables:
                child = table.get(getter(fr, f))
                if child is not None:
                    break
            else:
                return None
        else:
            child = node
        if type(child) is not Branch:
            return child
        node = child.children.get(child.fn(f))
    return None


def signature(slots: list[int], where: Callable[[int], Any], end: int) -> Any:
    """(end, merged byte ranges, f slots) of the reads ``slots``, classified by ``where``."""
    spans, fslots = [], set()
    for s in slots:
        w = where(s)
        if type(w) is tuple:
            spans.append((w[1], w[2]))
        elif w is not None:
            fslots.add(w)
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return end, tuple(merged), tuple(sorted(fslots))


EMPTY = (0, (), ())  # the signature of no reads


def store(
    root: KeyNode, rec: Recorder, reads: list[int], first: list[int], where: Any, end: int, key_in: tuple[bytes, list[int]], leaf: Any, getters: dict[Any, Any]
) -> None:  # fmt: skip
    """File ``leaf`` under the reads between lazy looks (``first``: extra reads of batch 0).

    Below a branch, the reads up to the next lazy look are the same for every run that got
    there (same keyed values so far, same lazy result: same steps), so one subtable
    follows; when it would be keyed on nothing, what follows sits in the branch directly."""
    at: tuple[dict[Any, Any], Any] | None = None  # below a branch: (its children, value)
    done, extra = 0, first
    for upto, spec, value in rec.cuts:
        table, key = _position(root, at, signature(extra + reads[done:upto], where, end), key_in, getters)  # fmt: skip
        branch = table.get(key)
        if type(branch) is not Branch or branch.spec != spec:
            branch = table[key] = Branch(spec)
        at = (branch.children, value)
        done, extra, end = upto, [], 0
    table, key = _position(root, at, signature(extra + reads[done:], where, end), key_in, getters)
    table[key] = leaf
    if len(root.subtables) > 1:  # the fullest subtables first: fewer probes per lookup
        root.subtables.sort(key=lambda st: -len(st[1]))


def _position(
    root: KeyNode, at: Any, sig: Any, key_in: tuple[bytes, list[int]], getters: dict[Any, Any]
) -> tuple[dict[Any, Any], Any]:
    """(dict, key) where what follows reads of signature ``sig`` goes: in the root's
    subtable, in the branch (``at``) itself when ``sig`` is EMPTY, else in the subtable of
    a node in the branch."""
    if at is None:
        node = root
    elif sig == EMPTY:
        return at
    else:
        children, value = at
        node = children.get(value)
        if type(node) is not KeyNode:
            node = children[value] = KeyNode()
    getter, table = node.subtable(sig, getters)
    return table, getter(*key_in)


def byte_ranges(layout: Any, inputs: list[dict[str, Any]], shape: Shape) -> Any:
    """The frame's byte ranges a calculation's input packs to, or None if it is not whole
    bytes of parsed header fields (fields of headers the shape lacks are skipped, as the
    calculation skips invalid headers)."""
    bits: list[tuple[int, int]] = []
    for item in inputs:
        kind, value = item.get("type"), item["value"]
        if kind == "field":
            h = layout.header(str(value[0]))
            slots = [layout.field(str(value[0]), str(value[1]))[0]]
        elif kind == "header":
            h = layout.header(str(value))
            slots = list(range(h.base, h.valid))
        else:
            return None
        if h.metadata:
            return None
        for s in slots:
            if s not in shape.fields:
                if h.valid in shape.valid:
                    return None
                continue
            _, _, b, shift, mask, _ = shape.fields[s]
            start, width = b * 8 - shift - mask.bit_length(), mask.bit_length()
            if bits and bits[-1][1] == start:
                bits[-1] = (bits[-1][0], start + width)
            else:
                bits.append((start, start + width))
    if any(a % 8 or b % 8 for a, b in bits):
        return None
    return tuple((a // 8, b // 8) for a, b in bits)


def write_field(buf: bytearray, place: Place, value: int) -> None:
    _, a, b, shift, mask, whole = place
    if whole:
        buf[a:b] = value.to_bytes(b - a, "big")
    else:
        x = int.from_bytes(buf[a:b], "big") & ~(mask << shift) | ((value & mask) << shift)
        buf[a:b] = x.to_bytes(b - a, "big")
