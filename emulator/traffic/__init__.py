"""fabemu traffic layer."""
