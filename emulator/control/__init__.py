"""fabemu control layer."""
