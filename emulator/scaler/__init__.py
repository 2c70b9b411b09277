"""fabemu scaler layer: predict load balance and collective time at 24K-100K GPUs.

fabric (shape) -> collectives (traffic phases) -> flowkeys + vhash (RoCEv2 keys, numpy CRC)
-> routing (per-mode paths, link loads) -> model (alpha-beta time); ballsbins (closed
forms), validate (published figures), calibrate (fit on runs), layout (training step),
sweep / report / cli (``fabemu scale``).  See docs/scaler.md.
"""
