"""fabemu runtime layer."""
