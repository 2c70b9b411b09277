"""Action-selector state diffs: incremental repairs equal a fresh programming."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.control.routes import compute_routes, link_id
from emulator.control.state import ProgramState
from emulator.topology import load_clos, resolve

TOPO = resolve(load_clos("two_rack_4spine"))
LINKS = [link_id(lk.a, lk.a_port, lk.b, lk.b_port) for lk in TOPO.links]


def _membership(states: dict[str, ProgramState]) -> dict[tuple[str, str], frozenset]:
    return {
        (name, prefix): frozenset(state.selection(prefix))
        for name, state in states.items()
        for prefix in state.groups
    }


def _fresh(failed: set) -> dict[str, ProgramState]:
    states = {}
    for name, routes in compute_routes(TOPO, failed).items():
        states[name] = ProgramState()
        states[name].program(routes)
    return states


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(LINKS)), max_size=8))
def test_incremental_updates_match_a_fresh_state(steps) -> None:
    live = _fresh(set())
    failed: set = set()
    for fail, link in steps:
        (failed.add if fail else failed.discard)(link)
        for name, routes in compute_routes(TOPO, failed).items():
            state = live[name]
            ops = state.update(routes)
            # no group is ever left empty, and per group adds precede removes
            assert all(len(m) >= 1 for m in state.group_members.values())
            kinds_per_group: dict[int, list[str]] = {}
            for op in ops:
                if op.kind in ("add", "remove"):
                    kinds_per_group.setdefault(op.group, []).append(op.kind)
            for kinds in kinds_per_group.values():
                assert kinds == sorted(kinds)  # "add" < "remove"
    assert _membership(live) == _membership(_fresh(failed))


def test_handles_count_from_zero_in_creation_order() -> None:
    state = ProgramState()
    ops = state.program(compute_routes(TOPO)["rtsw0"])
    created = [op.member for op in ops if op.kind == "create_member"]
    groups = [op.group for op in ops if op.kind == "create_group"]
    assert created == list(range(len(created)))
    assert groups == list(range(len(groups)))
    assert state.selection("10.0.1.0/24") == sorted(
        state.selection("10.0.1.0/24"), key=lambda h: h.port
    )
