"""The v1model architecture: its extern instances, methods and functions, for lowering.

``V1MODEL`` is what the compiler driver injects as ``ctx.arch``; generic lowering reaches
v1model only through it.
"""

from __future__ import annotations

from emulator.p4c.arch.v1model.functions import extern_function
from emulator.p4c.arch.v1model.instances import declare_instance
from emulator.p4c.arch.v1model.methods import extern_method


class V1Model:
    """v1model's externs as an ``Architecture`` (see ``emulator.p4c.lowering.context``)."""

    declare_instance = staticmethod(declare_instance)
    extern_method = staticmethod(extern_method)
    extern_function = staticmethod(extern_function)


V1MODEL = V1Model()
