"""Lowering: expressions, statements, tables, controls, parser and deparser blocks to BMv2 JSON.

Architecture-neutral: extern objects and functions are lowered through the hooks a
``Ctx`` carries (``ctx.calls``, ``ctx.arch``), never by importing an architecture.
"""
