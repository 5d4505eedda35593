b0 = sch.get_block(name="T_exp", func_name="main")
b1 = sch.get_block(name="T_sum", func_name="main")
l2, l3 = sch.get_loops(block=b1)
sch.compute_at(block=b0, loop=l2, preserve_unit_loops=True, index=-1)
