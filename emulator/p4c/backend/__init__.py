"""Back end: the BMv2 JSON document and its P4Info."""
