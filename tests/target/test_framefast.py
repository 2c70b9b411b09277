"""Straight-line replay code (emulator/target/framefast.py) does what the recorded outcome
says, as the interpreted replay does: random lazy values, slot writes, counter and
register updates (indices in and out of range) and byte patches."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.target import framefast
from emulator.target.externs import CounterArray, RegisterArray
from emulator.target.flowcache import Outcome
from emulator.target.flowlazy import Sym
from emulator.target.framekeys import write_field
from emulator.target.hashes import csum16

SLOTS = 12
OPS = st.lists(
    st.tuples(st.sampled_from(["and", "add", "sub", "rsub", "shr", "shl"]), st.integers(0, 9)),
    max_size=3,
)


def _world() -> tuple[RegisterArray, CounterArray]:
    reg = RegisterArray("r", 4, 8)
    reg.values[:] = [3, 200, 17, 255]
    return reg, CounterArray("c", 4)


@st.composite
def outcomes(draw: st.DrawFn) -> Any:
    """An outcome-like object over a world of one register and one counter array: lazy
    values of slots and cells, writes, lazy writes, effects (cells in and out of range)."""
    probes = st.one_of(
        st.builds(lambda i: ("slot", i), st.integers(0, SLOTS - 1)),
        st.builds(lambda i: ("reg", i), st.integers(-1, 5)),
    )
    specs = draw(st.lists(st.tuples(probes, OPS.map(tuple)), max_size=4))
    k = st.integers(-1, len(specs) - 1)
    writes = draw(st.lists(st.tuples(st.integers(0, SLOTS - 1), st.integers(0, 999)), max_size=4))
    syms = draw(st.lists(st.tuples(st.integers(0, SLOTS - 1), k), max_size=3))
    effects = draw(
        st.lists(st.tuples(st.booleans(), st.integers(-1, 5), st.integers(0, 99), k), max_size=4)
    )
    exit_ = draw(st.booleans())

    def build(reg: RegisterArray, ctr: CounterArray) -> Any:
        return SimpleNamespace(
            specs=[(("reg", reg.read, p[1]) if p[0] == "reg" else p, ops) for p, ops in specs],
            writes=tuple(writes),
            sym_writes=tuple((s, x) for s, x in syms if x >= 0),
            effects_k=tuple(
                (ctr.count if is_ctr else reg.write, a, -1, b, kb) for is_ctr, a, b, kb in effects
            ),
            pwrites=(("exit", exit_),),
        )

    return build


def _reference(out: Any, f: list[int], p: Any) -> None:
    """The interpreted ``Outcome.replay``, lazy values computed as recorded ones are (Sym)."""
    out.syms = [Sym(probe, ops).value for probe, ops in out.specs]
    out.effects = tuple((fn, a, b) for fn, a, _, b, _ in out.effects_k)
    Outcome.replay(out, f, p)


def _state(reg: RegisterArray, ctr: CounterArray) -> Any:
    return list(reg.values), list(ctr.packets), list(ctr.bytes)


SLOT_LISTS = st.lists(st.integers(0, 1 << 20), min_size=SLOTS, max_size=SLOTS)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), template=SLOT_LISTS, inputs=SLOT_LISTS)
def test_replay_function_equals_interpreted_replay(
    data: st.DataObject, template: list[int], inputs: list[int]
) -> None:
    """Same slots, cells, counters and packet requests, with and without ``filled`` (the
    template with the constant writes done; ``keep``: per-frame inputs)."""
    build = data.draw(outcomes())
    keep = data.draw(st.sets(st.integers(0, SLOTS - 1)))
    f0 = [inputs[i] if i in keep else v for i, v in enumerate(template)]
    ref, fast, fast2 = _world(), _world(), _world()
    out = build(*ref)
    f, p = f0.copy(), SimpleNamespace(exit=None)
    _reference(out, f, p)
    g, q = f0.copy(), SimpleNamespace(exit=None)
    framefast.replay_function(build(*fast))(g, q)
    assert (g, q.exit, _state(*fast)) == (f, p.exit, _state(*ref))
    filled = template.copy()
    for s, v in out.writes:
        filled[s] = v
    kept = tuple(s for s in sorted(keep) if s not in {s for s, _ in out.writes})
    h, r = f0.copy(), SimpleNamespace(exit=None)
    framefast.replay_function(build(*fast2), filled, kept)(h, r)
    assert (h, r.exit, _state(*fast2)) == (f, p.exit, _state(*ref))


@given(
    frame=st.binary(min_size=40, max_size=60),
    value=st.integers(0, (1 << 16) - 1),
    start=st.integers(0, 30 * 8),
    width=st.integers(1, 16),
)
def test_deparse_function_patches_like_write_field(
    frame: bytes, value: int, start: int, width: int
) -> None:
    """One field patched (whole bytes or not), then a checksum over two ranges."""
    a, b = start // 8, (start + width + 7) // 8
    shift, mask = b * 8 - start - width, (1 << width) - 1
    place = (0, a, b, shift, mask, shift == 0 and start % 8 == 0 and width % 8 == 0)
    target = (1, 34, 36, 0, 0xFFFF, True)
    eo = SimpleNamespace(
        csums=((target, 0xFFFF, ((0, 10), (12, 20)), None),), valid=(2,), patch=(place,)
    )
    fn = framefast.deparse_function(eo)
    assert fn is not None
    f = [value & mask, 0, 0]
    got = fn(f, frame)
    buf = bytearray(frame)
    write_field(buf, place, value & mask)
    v = csum16(bytes(buf[0:10]) + bytes(buf[12:20])) & 0xFFFF
    write_field(buf, target, v)
    assert got == bytes(buf) and f == [value & mask, v, 1]
    eo.csums = ((target, 0xFFFF, ((0, 10),), lambda f, p: True),)
    assert framefast.deparse_function(eo) is None  # a condition left: interpreted
