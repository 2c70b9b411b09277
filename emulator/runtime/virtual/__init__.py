"""The virtual-time runtime: a deterministic discrete-event network in one process."""
