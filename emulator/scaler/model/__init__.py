"""The scaler's analytic model: fabric shape, traffic, routing and alpha-beta timing.

fabric (shape) -> collectives (traffic phases) -> flowkeys + vhash (RoCEv2 keys, numpy CRC)
-> routing (per-mode paths, link loads) -> timing (alpha-beta time); ballsbins (closed
forms), validate (published figures), layout (training step).
"""
