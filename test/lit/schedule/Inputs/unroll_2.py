b0 = sch.get_block(name="pool_sum", func_name="main")
l1, l2, l3, l4, l5, l6 = sch.get_loops(block=b0)
sch.unroll(loop=l5)
sch.unroll(loop=l6)
