"""Seeded differential fuzzing of P4 control flow: statements, actions and tables.

Where ``fuzz_differential.py`` varies expressions, this varies what runs them. A program's
ingress is a random block of statements over the inputs of ``fuzz_programs.py``: assignments
to output fields and control locals (expressions read inputs, locals, outputs and action
parameters), ``if``/``else``, direct action calls with arguments (actions may call earlier
actions), ``exit``, ``setInvalid``/``setValid`` of the output header, and tables with const
entries (exact, ternary, lpm and range keys on input fields; entries made from the packets'
own values, so they hit) applied as ``t.apply()``, ``if (t.apply().hit)`` / ``.miss`` and
``switch (t.apply().action_run)`` with shared labels and ``default``. Packets run three ways
(real p4c + simple_switch, fabemu, p4c's JSON on the built-in target); a differing program is
reduced statement by statement (drop one, or keep one block of a compound one) while it
differs the same ways, and kept with an STF of the real outputs::

    python benchmarks/fuzz_statements.py --seed 1 --programs 30 --keep /tmp/fzs/s1
"""

from __future__ import annotations

import random
import string
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from fuzz_differential import (  # noqa: E402
    Result,
    WholeProgramFuzzer,
    drive,
    field_diffs,
    run_program,
)
from fuzz_programs import (  # noqa: E402
    BOOL,
    HEAD,
    IN_BYTES,
    INPUTS,
    OUT_AT,
    TAIL,
    Expr,
    Gen,
    Layout,
    Ty,
    decode,
    make_packets,
    tname,
    with_pad,
)

PROGRAM = string.Template(
    HEAD
    + """\
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
$decls
    apply {
        sm.egress_spec = 1; hdr.outp.setValid();
$body
    }
}
"""
    + TAIL
)
KEYS = [(n, t) for n, t in INPUTS if not t[0]]  # table keys: the unsigned inputs
KINDS = ("exact", "exact", "ternary", "lpm", "range")


@dataclass(frozen=True)
class Node:
    """A statement: ``heads[0]`` alone, or each head followed by its block, then ``close``."""

    heads: tuple[str, ...]
    blocks: tuple[tuple[Node, ...], ...] = ()
    close: str = ""

    def lines(self, ind: str) -> list[str]:
        if not self.blocks:
            return [ind + self.heads[0]]
        out: list[str] = []
        for head, block in zip(self.heads, self.blocks, strict=True):
            out += [ind + h for h in head.split("\n")]
            out += [ln for n in block for ln in n.lines(ind + "    ")]
        return out + [ind + c for c in self.close.split("\n")]


Block = tuple[Node, ...]


def size(block: Block) -> int:
    """Statements in ``block``, nested ones included."""
    return sum(1 + sum(size(b) for b in n.blocks) for n in block)


def reductions(block: Block) -> list[Block]:
    """``block`` with one statement dropped, or replaced by one of its blocks, at any depth."""
    out: list[Block] = []
    for i, n in enumerate(block):
        pre, post = block[:i], block[i + 1 :]
        out.append(pre + post)
        out += [pre + b + post for b in n.blocks]
        for j, b in enumerate(n.blocks):
            for r in reductions(b):
                blocks = (*n.blocks[:j], r, *n.blocks[j + 1 :])
                out.append((*pre, Node(n.heads, blocks, n.close), *post))
    return out


@dataclass
class Action:
    """An action of the control: ``io`` parameters (direction, name, type; only for direct
    calls), then directionless ones (a table's entries give them), a body."""

    name: str
    params: Layout
    body: Block = ()
    exits: bool = False  # its body exits (itself or by a call)
    io: list[tuple[str, str, Ty]] = field(default_factory=list)

    def decl(self) -> list[str]:
        ps = ", ".join([f"{d} {tname(t)} {n}" for d, n, t in self.io]
                       + [f"{tname(t)} {n}" for n, t in self.params])  # fmt: skip
        lines = [ln for n in self.body for ln in n.lines("        ")]
        return [f"    action {self.name}({ps}) {{", *lines, "    }"]


@dataclass
class Program:
    """Everything a program is made of; ``body`` and the actions' bodies are reducible."""

    outs: Layout
    locals: Layout
    actions: list[Action]
    tables: list[str]
    init: list[str]
    body: Block

    def render(self) -> str:
        full = with_pad(self.outs)
        fields = ["".join(f"{tname(t)} {n}; " for n, t in lay) for lay in (INPUTS, full)]
        decls = [f"    {tname(t)} {n};" for n, t in self.locals]
        decls += [ln for a in self.actions for ln in a.decl()] + self.tables
        body = [f"        {s}" for s in self.init] + [
            ln for n in self.body for ln in n.lines(" " * 8)
        ]
        return PROGRAM.substitute(
            infields=fields[0], outfields=fields[1], decls="\n".join(decls), body="\n".join(body)
        )

    def size(self) -> int:
        return size(self.body) + sum(size(a.body) for a in self.actions)

    def variants(self) -> list[Program]:
        """Every one-step reduction of the body and of each action's body."""
        out = [Program(self.outs, self.locals, self.actions, self.tables, self.init, b)
               for b in reductions(self.body)]  # fmt: skip
        for i, a in enumerate(self.actions):
            for b in reductions(a.body):
                acts = list(self.actions)
                acts[i] = Action(a.name, a.params, b, a.exits, a.io)
                out.append(Program(self.outs, self.locals, acts, self.tables, self.init, self.body))
        return out


class StmtGen(Gen):
    """Random statements, actions and tables; expressions come from :class:`Gen`."""

    def __init__(self, rng: random.Random, edge: float, packets: list[bytes]) -> None:
        super().__init__(rng, edge)
        self.values = [decode(b"\x00" + f, INPUTS, OUT_AT - IN_BYTES) for f in packets]
        self.readable: list[tuple[str, Ty]] = []
        self.writable: list[tuple[str, Ty]] = []
        self.actions: list[Action] = []  # tables' actions
        self.io_actions: list[Action] = []  # with inout/in parameters: direct calls only
        self.tables: list[str] = []

    def leaf(self, t: Ty) -> Expr:
        if t == BOOL and self.rng.random() < 0.1:
            return Expr("hdr.outp.isValid()", t)
        same = [ref for ref, vt in self.readable if vt == t]
        if same and self.rng.random() < 0.4:
            return Expr(self.rng.choice(same), t)
        return super().leaf(t)

    def expr(self, t: Ty) -> str:
        return self.num(t, self.rng.randint(0, 2)).text()

    def program(self, n_outs: int) -> Program:
        r = self.rng
        outs = [(f"f{i}", self.ty()) for i in range(n_outs)]
        locs = [(f"l{i}", self.ty()) for i in range(r.randint(1, 3))]
        self.writable = [(f"hdr.outp.{n}", t) for n, t in outs] + locs
        self.readable = list(self.writable)
        init = [f"{ref} = {self.const(t).text()};" for ref, t in self.writable]
        for i in range(r.randint(1, 4)):
            params = [(f"p{i}_{j}", self.ty()) for j in range(r.randint(0, 2))]
            saved = self.readable
            self.readable = saved + params
            act = Action(f"a{i}", params)
            act.body = self.block(1, act)
            self.readable = saved
            self.actions.append(act)
        for i in range(r.randint(0, 2)):
            self.io_actions.append(self.io_action(i))
        body = self.block(2, None)
        return Program(outs, locs, self.actions + self.io_actions, self.tables, init, body)

    def io_action(self, i: int) -> Action:
        """``action hI(inout T xI, in U yI)``: copy-in/copy-out, aliased arguments."""
        t, u = self.rng.choice(self.writable)[1], self.ty()
        act = Action(f"h{i}", [], io=[("inout", f"x{i}", t), ("in", f"y{i}", u)])
        saved = self.readable, self.writable
        self.readable = [*saved[0], (f"x{i}", t), (f"y{i}", u)]
        self.writable = [*saved[1], (f"x{i}", t)]
        act.body = self.block(1, act)
        self.readable, self.writable = saved
        return act

    def call(self, a: Action) -> str:
        """A direct call of ``a``: a variable of its type for an inout parameter."""
        args = [self.rng.choice([ref for ref, vt in self.writable if vt == t]) if d == "inout"
                else self.expr(t) for d, _, t in a.io]  # fmt: skip
        return f"{a.name}({', '.join(args + [self.expr(t) for _, t in a.params])});"

    def block(self, depth: int, action: Action | None) -> Block:
        return tuple(self.stmt(depth, action) for _ in range(self.rng.randint(1, 3 + depth)))

    def stmt(self, depth: int, action: Action | None) -> Node:
        r = self.rng
        # an exit under a condition in an action: p4c-bm2-ss refuses it (BMv2 has none)
        cond_in_action = action is not None and depth < 1
        kinds = (
            ["assign"] * 6 + ["call"] * 2 + ["exit"] * (r.random() < 0.15 and not cond_in_action)
        )
        kinds += ["if"] * 2 * (depth > 0)
        if action is None:
            kinds += ["apply", "hit", "switch"] * (depth > 0) + ["valid"] * (r.random() < 0.2)
            kinds += ["return"] * (r.random() < 0.1)
        callable_ = [a for a in self.actions + self.io_actions if not (cond_in_action and a.exits)]
        kind = r.choice([k for k in kinds if k != "call" or callable_])
        if kind == "assign":
            ref, t = r.choice(self.writable)
            return Node((f"{ref} = {self.expr(t)};",))
        if kind == "call":
            a = r.choice(callable_)
            if action is not None:
                action.exits |= a.exits
            return Node((self.call(a),))
        if kind == "return":
            return Node(("return;",))
        if kind == "exit":
            if action is not None:
                action.exits = True
            return Node(("exit;",))
        if kind == "valid":
            return Node((f"hdr.outp.{r.choice(('setInvalid', 'setValid'))}();",))
        if kind == "if":
            cond = self.boolean(r.randint(0, 2)).text()
            # no else in actions: p4c 1.2.4.8 predicates an if/else assigning a field in
            # both branches into code that applies one branch's last assignment twice
            if r.random() < 0.3 or action is not None:
                return Node((f"if ({cond}) {{",), (self.block(depth - 1, action),), "}")
            blocks = (self.block(depth - 1, action), self.block(depth - 1, action))
            return Node((f"if ({cond}) {{", "} else {"), blocks, "}")
        name, acts = self.table()
        if kind == "apply":
            return Node((f"{name}.apply();",))
        if kind == "hit":
            test = r.choice((".hit", ".miss", ".hit", "!.hit"))
            cond = f"!{name}.apply().hit" if test == "!.hit" else f"{name}.apply(){test}"
            blocks = (self.block(depth - 1, None), self.block(depth - 1, None))
            return Node((f"if ({cond}) {{", "} else {"), blocks, "}")
        labels = [a.name for a in acts]
        r.shuffle(labels)
        heads, groups = [], []
        while labels:
            k = r.randint(1, min(2, len(labels)))
            groups.append(labels[:k])
            labels = labels[k:]
        groups = groups[: r.randint(1, len(groups))] + ([["default"]] if r.random() < 0.5 else [])
        for i, g in enumerate(groups):
            open_ = f"switch ({name}.apply().action_run) {{\n" if i == 0 else "}\n"
            heads.append(open_ + "    " + " ".join(f"{lab}:" for lab in g) + " {")
        cases = tuple(self.block(depth - 1, None) for _ in groups)
        return Node(tuple(heads), cases, "}\n}")

    def key_entry(self, ref: str, w: int, kind: str) -> tuple[str, tuple[int, int]]:
        """One key's value in a const entry (an input's from a packet mostly, a variable's
        0, all ones or random) and what BMv2 makes of it (entries equal so are one)."""
        r, top, name = self.rng, (1 << w) - 1, ref.removeprefix("hdr.inp.")
        if name != ref and r.random() < 0.7:
            v = r.choice(self.values)[name]
        else:
            v = r.choice((0, top, r.getrandbits(w), r.getrandbits(w)))
        if kind == "exact":
            return f"{w}w{v}", (v, 0)
        if r.random() < 0.15 and (kind != "range" or w < 32):
            # (p4c 1.2.4.8 writes a range's `_` of >= 32 bits as 0 .. (1 << w % 32) - 1)
            return "_", ((0, top) if kind == "range" else (0, 0))
        if kind == "range":
            lo, hi = sorted((v, r.choice((v, r.getrandbits(w), top, 0))))
            return f"{w}w{lo} .. {w}w{hi}", (lo, hi)
        if kind == "lpm":
            plen = r.randint(0, w)
            mask = top ^ ((1 << (w - plen)) - 1)
            # BMv2 counts the prefix from the top of the key's whole bytes: the bits it
            # compares are all that make two entries differ
            v &= ((1 << plen) - 1) << (-(-w // 8) * 8 - plen)
            return f"{w}w{v} &&& {w}w{mask}", (v, plen)
        mask = r.getrandbits(w) if r.random() < 0.7 else top
        return f"{w}w{v & mask} &&& {w}w{mask}", (v & mask, mask)

    def table(self) -> tuple[str, list[Action]]:
        """A new table (each is applied once); its name and its actions."""
        r, name = self.rng, f"t{len(self.tables)}"
        pool = [(f"hdr.inp.{n}", t) for n, t in KEYS]
        pool += [(ref, t) for ref, t in self.writable if not t[0] and r.random() < 0.3]
        keys = r.sample(pool, r.randint(1, 3))
        kinds = [r.choice(KINDS) for _ in keys]
        if kinds.count("lpm") > 1:
            kinds = [k if k != "lpm" or i == kinds.index("lpm") else "exact"
                     for i, k in enumerate(kinds)]  # fmt: skip
        acts = r.sample(self.actions, r.randint(1, len(self.actions)))

        def call(a: Action) -> str:  # p4c writes a negative one as "-0x3", which
            # simple_switch 1.15.5 cannot load ("only available for positive numbers")
            data = [
                f"{t[1]}{'s' if t[0] else 'w'}{r.getrandbits(t[1] - t[0])}" for _, t in a.params
            ]
            return f"{a.name}({', '.join(data)})"

        seen, entries = set(), []
        for _ in range(r.randint(0, 5)):
            parts = [self.key_entry(n, t[1], k) for (n, t), k in zip(keys, kinds, strict=True)]
            norm = tuple(p[1] for p in parts)  # simple_switch refuses duplicates
            if norm not in seen:
                seen.add(norm)
                text = ", ".join(p[0] for p in parts)
                entries.append(f"            ({text}) : {call(r.choice(acts))};")
        lines = [f"    table {name} {{", "        key = {"]
        lines += [f"            {ref}: {k};" for (ref, _), k in zip(keys, kinds, strict=True)]
        lines += ["        }", f"        actions = {{ {' '.join(a.name + ';' for a in acts)} }}"]
        if entries:
            lines += ["        const entries = {", *entries, "        }"]
        lines += [f"        default_action = {call(r.choice(acts))};", "    }"]
        self.tables.append("\n".join(lines))
        return name, acts


class Fuzzer(WholeProgramFuzzer):
    """Control-flow programs, reduced statement by statement when they differ."""

    def run(self, prog: Program, packets: list[bytes]) -> Result:
        self.stats["runs"] += 1
        return run_program(prog.render(), packets, self.work, self.args.lock, True)

    def ways(self, prog: Program, packets: list[bytes], res: Result) -> set[str]:
        return {w for per in field_diffs(res, prog.outs, len(packets)).values() for w in per}

    def reduce(self, prog: Program, packets: list[bytes], ways: set[str]) -> Program:
        """Greedy: the smallest one-step reduction that still differs the same ways, again,
        within ``--budget`` runs."""
        budget = self.args.budget
        while budget > 0:
            for cand in sorted(prog.variants(), key=Program.size):
                budget -= 1
                res = self.run(cand, packets)
                ok = not (res.p4c_error or res.fab_error or res.real_error)
                if ok and self.ways(cand, packets, res) == ways:
                    prog = cand
                    break
                if budget <= 0:
                    break
            else:
                break
        return prog

    def program(self, n: int) -> None:
        """Generate, run and compare program ``n`` of the seed; reduce what differs."""
        a, st = self.args, self.stats
        rng = random.Random(f"stmt:{a.seed}:{n}")
        packets = make_packets(rng, a.packets)
        prog = StmtGen(rng, 0.0, packets).program(a.fields)
        res = self.run(prog, packets)
        if not self.compared(n, prog.render(), packets, res):
            return
        ways = self.ways(prog, packets, res)
        if a.verbose or ways:
            print(
                f"[{n}] statements {prog.size()}, differing: {sorted(ways) or 'none'}", flush=True
            )
        if not ways:
            return
        st["programs with differences"] += 1
        small = self.reduce(prog, packets, ways)
        res = self.run(small, packets)
        head = f"DIFF seed {a.seed} program {n}: {','.join(sorted(ways))} differ"
        head += f" ({prog.size()} statements, reduced to {small.size()})"
        self.keep(f"prog{n}", small.render(), packets, res, head)


OPTIONS = (
    ("--programs", 30, "programs to generate"),
    ("--fields", 4, "output fields per program"),
    ("--packets", 6, "packets per program"),
    ("--budget", 60, "runs per reduction"),
)


def main(argv: list[str] | None = None) -> int:
    """Fuzz control flow; the options and counts as ``fuzz_differential.py``'s."""
    return drive(__doc__ or "", OPTIONS, Fuzzer, argv)


if __name__ == "__main__":
    sys.exit(main())
