"""fabemu p4c layer."""
