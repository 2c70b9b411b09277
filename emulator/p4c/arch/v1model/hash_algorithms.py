"""v1model's ``HashAlgorithm`` enum members as BMv2 calculation algorithm names."""

from __future__ import annotations

from emulator.p4c.diagnostics import CompileError, Pos
from emulator.p4c.frontend import types as T
from emulator.p4c.frontend.values import Const, Value

HASH_ALGOS = {
    "crc32": "crc32", "crc32_custom": "crc32_custom", "crc16": "crc16",
    "crc16_custom": "crc16_custom", "random": "random", "identity": "identity",
    "csum16": "csum16", "xor16": "xor16",
}  # fmt: skip


def algo_name(v: Value, pos: Pos) -> str:
    """The BMv2 algorithm of a ``HashAlgorithm`` constant."""
    if (
        not isinstance(v, Const)
        or not isinstance(v.type, T.EnumT)
        or v.type.name != "HashAlgorithm"
    ):
        raise CompileError(pos, "expected a HashAlgorithm constant")
    name = next(n for n, x in v.type.members if x == v.value)
    return HASH_ALGOS[name]
