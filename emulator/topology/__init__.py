"""fabemu topology layer."""
