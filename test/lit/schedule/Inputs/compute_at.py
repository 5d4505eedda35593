b0 = sch.get_block(name="data_pad", func_name="main")
b1 = sch.get_block(name="conv", func_name="main")
l2, l3, l4, l5, l6, l7, l8 = sch.get_loops(block=b1)
sch.compute_at(block=b0, loop=l5, preserve_unit_loops=False, index=-1)
