"""fabemu traffic layer: RoCEv2 packets, emulated RNICs and AI-training workloads.

Modules: ``qos`` (DSCP/TC plan), ``opcodes``, ``roce`` (struct codec, ICRC, UDP sport),
``framing`` (RoCEv2 framing strategy), ``pfc`` (802.1Qbb frames), ``headers`` (scapy
layers, tests/pcaps only), ``qp`` (RC queue pair), ``dcqcn``, ``counters``, ``rnic``
(the RNIC object), ``connection`` (QPs + NCCL CTS admission), ``collectives``,
``workloads`` (jobs, placement, Deployment), ``endpoints`` (topology glue),
``rnic_process`` (raw-socket process for Mininet hosts). See docs/traffic.md.
"""
