"""The identity of one flow: the QP that sent its data and the QP that received it.

Built by the traffic layer (one per data QP), carried by ``FlowRecord`` and ``FlowResult``,
read back by the runtimes (which uplink did it take) and the scaler (replay its hash). Its
text form, the one ``result.json`` and the RNIC process reports hold, is written and read
here only::

    FlowId(src_qpn=0x698864, dst_qpn=0x304454)  <──►  "0x698864->0x304454"
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

_TEXT = re.compile(r"0x([0-9a-fA-F]+)->0x([0-9a-fA-F]+)")


@dataclass(frozen=True, slots=True, order=True)
class FlowId:
    """Source QPN -> destination QPN of one RC data flow (24-bit QP numbers)."""

    src_qpn: int
    dst_qpn: int

    def __str__(self) -> str:
        return f"{self.src_qpn:#x}->{self.dst_qpn:#x}"

    @classmethod
    def parse(cls, text: str) -> FlowId:
        """The flow id written as ``"0x<src QPN>->0x<dst QPN>"``; ValueError otherwise."""
        m = _TEXT.fullmatch(text)
        if m is None:
            raise ValueError(f"flow id {text!r}: expected '0x<source QPN>->0x<destination QPN>'")
        return cls(int(m[1], 16), int(m[2], 16))

    @classmethod
    def coerce(cls, value: object) -> FlowId:
        """A FlowId as given, or parsed from its text form (result files, RNIC reports)."""
        if isinstance(value, FlowId):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        raise ValueError(f"flow id: expected a string, got {type(value).__name__}")


#: a ``FlowId`` field of a pydantic model, read from and written as its text form
FlowIdField = Annotated[
    FlowId,
    PlainValidator(FlowId.coerce),
    PlainSerializer(str, return_type=str),
    WithJsonSchema({"type": "string", "pattern": _TEXT.pattern}),
]
