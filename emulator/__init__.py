"""fabemu: a network emulator for AI-training fabrics (RoCE and InfiniBand Clos fabrics)."""

__version__ = "0.1.0"
