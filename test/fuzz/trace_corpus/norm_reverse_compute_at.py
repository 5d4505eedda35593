b0 = sch.get_block(name="S", func_name="norm")
b1 = sch.get_block(name="D", func_name="norm")
l2, l3 = sch.get_loops(block=b0)
sch.reverse_compute_at(block=b1, loop=l2, preserve_unit_loops=False, index=-1)
