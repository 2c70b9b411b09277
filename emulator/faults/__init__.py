"""Faults mid-run and the fabric's recovery: schema, timeline, injection, repair, metrics."""
