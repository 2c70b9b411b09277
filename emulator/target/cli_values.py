"""Value syntax of simple_switch_CLI: ints, hex, IPv4/IPv6, MAC, lpm, ternary, range."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from emulator.target.errors import CliError
from emulator.target.tables import KeyField, lpm_mask

_MAC = re.compile(r"[0-9a-fA-F]{1,2}(:[0-9a-fA-F]{1,2}){5}\Z")  # 0:1:2:3:4:5 too
_IPV4 = re.compile(r"\d{1,3}(\.\d{1,3}){3}\Z")


def parse_int(text: str, width: int, what: str) -> int:
    """A numeric value that must fit in ``width`` bits."""
    t = text.strip()
    try:
        if _MAC.match(t):
            value = int("".join(f"{int(b, 16):02x}" for b in t.split(":")), 16)
        elif _IPV4.match(t):
            value = int(ipaddress.IPv4Address(t))
        elif ":" in t:
            value = int(ipaddress.IPv6Address(t))
        else:
            value = int(t, 0)
    except ValueError:
        raise CliError(f"{what}: invalid value {text!r}") from None
    if value < 0:
        raise CliError(f"{what}: negative value {text!r}")
    if width and value >> width:
        raise CliError(f"{what}: value {text!r} does not fit in {width} bits")
    return value


def parse_match(text: str, kf: KeyField) -> Any:
    """The normalised match spec of one key field (see ``tables.Table.add``)."""
    mt, w, what = kf.match_type, kf.width, f"key {kf.name} ({kf.match_type})"
    if mt in ("exact", "valid"):
        if mt == "valid" and text.lower() in ("true", "false"):
            return int(text.lower() == "true")
        return parse_int(text, w, what)
    if mt == "lpm":
        if "/" not in text:
            raise CliError(f"{what}: expected value/prefix_length, got {text!r}")
        v, plen_s = text.rsplit("/", 1)
        # as BMv2: at most the field's width, counted from the top of its whole bytes
        if not plen_s.isdigit() or int(plen_s) > w:
            raise CliError(f"{what}: invalid prefix length {plen_s!r} (field is {w} bits)")
        plen = int(plen_s)
        return parse_int(v, w, what) & lpm_mask(w, plen), plen
    if mt in ("ternary", "optional"):
        if "&&&" not in text:
            raise CliError(f"{what}: expected value&&&mask, got {text!r}")
        v, m = text.split("&&&", 1)
        mask = parse_int(m, w, what)
        return parse_int(v, w, what) & mask, mask
    if mt == "range":
        if "->" not in text:
            raise CliError(f"{what}: expected low->high, got {text!r}")
        lo, hi = (parse_int(x, w, what) for x in text.split("->", 1))
        if lo > hi:
            raise CliError(f"{what}: empty range {text!r}")
        return lo, hi
    raise CliError(f"{what}: unsupported match kind")


def hex_bytes(value: int, width: int) -> str:
    """BMv2's way of printing a value: colon-separated bytes."""
    nbytes = max(1, (width + 7) // 8)
    return ":".join(f"{b:02x}" for b in value.to_bytes(nbytes, "big"))


def format_match(spec: Any, kf: KeyField) -> str:
    """One key field as simple_switch_CLI prints it."""
    mt, w = kf.match_type, kf.width
    if mt == "lpm":
        return f"LPM-{hex_bytes(spec[0], w)}/{spec[1]}"
    if mt in ("ternary", "optional"):
        return f"TERNARY-{hex_bytes(spec[0], w)} &&& {hex_bytes(spec[1], w)}"
    if mt == "range":
        return f"RANGE-{hex_bytes(spec[0], w)} -> {hex_bytes(spec[1], w)}"
    return f"{mt.upper()}-{hex_bytes(spec, w)}"


def plain_hex(value: int, width: int = 0) -> str:
    """A value as ``table_dump`` prints it: hex bytes, no separators; a key field in its
    whole width, action data (``width`` 0) in as few bytes as hold it."""
    nbytes = (width + 7) // 8 or (value.bit_length() + 7) // 8
    return value.to_bytes(max(1, nbytes), "big").hex()


def dump_match(spec: Any, kf: KeyField) -> str:
    """One key field of an entry as simple_switch_CLI's ``table_dump`` prints it."""
    mt, w = kf.match_type, kf.width
    if mt == "lpm":
        value = f"{plain_hex(spec[0], w)}/{spec[1]}"
    elif mt in ("ternary", "optional"):
        value = f"{plain_hex(spec[0], w)} &&& {plain_hex(spec[1], w)}"
    elif mt == "range":
        value = f"{plain_hex(spec[0], w)} -> {plain_hex(spec[1], w)}"
    else:
        value = plain_hex(spec, w)
    return f"* {key_name(kf):<20}: {mt.upper():<10}{value}"


def key_name(kf: KeyField) -> str:
    """A key field as simple_switch_CLI names it: its JSON target (``hdr.x`` of p4c's
    ``hdr.x`` key is ``x``'s header and field), ``h_valid`` for ``h.isValid()``."""
    name = kf.target or kf.name
    if kf.match_type == "valid" or name.endswith(".$valid$"):  # p4c: ["h", "$valid$"]
        name = name.removesuffix(".$valid$") + "_valid"
    return name


_COUNTER = re.compile(r"\((\d+) bytes, (\d+) packets\)")


def format_counter(name: str, index: int, nbytes: int, npkts: int, table: str = "") -> str:
    """``counter_read``'s reply as simple_switch_CLI prints it (``name`` as the user typed it;
    a direct counter first names its table)."""
    line = f"{name}[{index}]= ({nbytes} bytes, {npkts} packets)"
    return f"this is the direct counter for table {table}\n{line}" if table else line


def parse_counter(text: str) -> tuple[int, int] | None:
    """``(bytes, packets)`` from a ``counter_read`` reply, or None when there is none."""
    m = _COUNTER.search(text)
    return (int(m.group(1)), int(m.group(2))) if m else None
