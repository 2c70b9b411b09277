-- Wireshark/tshark: dissect fabemu's InfiniBand shim (EtherType 0x88B5, IEEE "Local
-- Experimental Ethertype 1") with Wireshark's own InfiniBand dissectors:
--   data packets (destination: an HCA's MAC)  -> the link-layer dissector, LRH first
--   flow control packets (destination 01:80:c2:00:00:01, emulator/ib/linkfc.py)
--                                             -> "infiniband_link" (Op, FCTBS, VL, FCCL, LPCRC)
--   tshark -X lua_script:scripts/wireshark/ib_shim.lua -r results/.../rtsw0-eth1_in.pcap -V
-- (The plain "-d ethertype==0x88b5,infiniband" decode-as picks the GRH-first variant that
-- RoCEv1 uses and misreads the LRH; the link-layer dissector used here expects an LRH.)
local ib_lrh = DissectorTable.get("wtap_encap"):get_dissector(150)  -- WTAP_ENCAP_INFINIBAND
local ib_link = Dissector.get("infiniband_link")
local eth_dst = Field.new("eth.dst")
local FCP_DST = "0180C2000001"

local shim = Proto("fabemu_ib_shim", "fabemu InfiniBand shim")

function shim.dissector(tvb, pinfo, tree)
    local dst = eth_dst()
    if dst ~= nil and dst.range:bytes():tohex() == FCP_DST then
        return ib_link:call(tvb, pinfo, tree)
    end
    return ib_lrh:call(tvb, pinfo, tree)
end

DissectorTable.get("ethertype"):add(0x88b5, shim)
