"""The InfiniBand sibling fabric: ibsim + real OpenSM control plane, IB framing, credits."""
