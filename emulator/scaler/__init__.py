"""fabemu scaler layer."""
