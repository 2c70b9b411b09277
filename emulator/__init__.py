"""fabemu: a network emulator for AI-training fabrics (RoCE and InfiniBand Clos fabrics)."""

from emulator import native as _native

__version__ = "0.1.0"

_native.install()  # compiled data-path modules, when built and fresh (emulator/native)
