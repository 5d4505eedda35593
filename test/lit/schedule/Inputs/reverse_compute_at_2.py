b0 = sch.get_block(name="pool_avg", func_name="main")
b1 = sch.get_block(name="pool_sum", func_name="main")
l2, l3, l4, l5, l6, l7 = sch.get_loops(block=b1)
sch.reverse_compute_at(block=b0, loop=l5, preserve_unit_loops=True, index=-1)
