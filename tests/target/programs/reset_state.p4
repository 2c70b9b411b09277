/* reset_state.p4 -- state that simple_switch_CLI's reset_state clears or keeps: table
 * entries (const ones too) and defaults, a register, a counter, multicast groups and
 * nodes; mirroring sessions stay. */
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { bit<16> unused; }

parser P(packet_in pk, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(h.eth); transition accept; }
}

control VC(inout headers_t h, inout meta_t m) { apply { } }

control I(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<16>>(4) r;
    counter(4, CounterType.packets_and_bytes) c;
    action set(bit<9> p) { sm.egress_spec = p; }
    action dflt() { sm.egress_spec = 1; }
    action mc(bit<16> g) { sm.mcast_grp = g; }
    action cl() { clone(CloneType.I2E, 9); sm.egress_spec = 7; }
    table t {
        key = { h.eth.type: exact; }
        actions = { set; dflt; }
        default_action = dflt();
    }
    table fixed {
        key = { h.eth.dst[7:0]: exact; }
        actions = { mc; NoAction; }
        const entries = { 0xee: mc(5); }
        default_action = NoAction();
    }
    table extra {
        key = { h.eth.dst[7:0]: exact; }
        actions = { mc; cl; NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
        fixed.apply();
        extra.apply();
        bit<16> v;
        r.read(v, 0);
        h.eth.src[15:0] = v;  // the register's count so far, then one more
        r.write(0, v + 1);
        c.count(0);
    }
}

control E(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t h, inout meta_t m) { apply { } }
control D(packet_out pk, in headers_t h) { apply { pk.emit(h.eth); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
