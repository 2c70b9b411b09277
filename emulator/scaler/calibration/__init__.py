"""Calibration of the scaler's model: measured runs in, fitted parameters and hold-out errors out.

emulated (RunResult files -> runs) and points (minimal measured records) -> fitting (the one
weighted least-squares pipeline) -> emufit / points.fit; emurun makes calibration runs; cli
is ``fabemu scale --calibrate``.
"""
