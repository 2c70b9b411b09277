"""fabemu scaler layer: predict load balance and collective time at 24K-100K GPUs.

``model/`` is the analytic model (fabric shape, collectives, RoCEv2 flow keys and hashes,
routing, alpha-beta timing, closed forms and published figures); ``calibration/`` fits it
to measured runs through one least-squares pipeline; sweep / report / cli make
``fabemu scale``.  See docs/scaler.md.
"""
