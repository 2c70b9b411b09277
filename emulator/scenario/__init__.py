"""fabemu scenario layer."""
