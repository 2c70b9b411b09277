"""Architectures: the externs, extern functions and blocks of a P4 architecture (v1model)."""
