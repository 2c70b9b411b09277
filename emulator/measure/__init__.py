"""fabemu measure layer."""
