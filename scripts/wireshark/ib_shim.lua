-- Wireshark/tshark: dissect fabemu's InfiniBand shim (EtherType 0x88B5, IEEE "Local
-- Experimental Ethertype 1") with Wireshark's own InfiniBand dissector, starting at the LRH.
--   tshark -X lua_script:scripts/wireshark/ib_shim.lua -r results/.../rtsw0-eth1_in.pcap -V
-- (The plain "-d ethertype==0x88b5,infiniband" decode-as picks the GRH-first variant that
-- RoCEv1 uses and misreads the LRH; the link-layer dissector used here expects an LRH.)
local ib_lrh = DissectorTable.get("wtap_encap"):get_dissector(150)  -- WTAP_ENCAP_INFINIBAND
DissectorTable.get("ethertype"):add(0x88b5, ib_lrh)
