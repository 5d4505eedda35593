b0 = sch.get_block(name="T_exp", func_name="main")
l1, l2 = sch.get_loops(block=b0)
l3, l4 = sch.split(loop=l2, factors=[None, 8], preserve_unit_iters=True)
sch.vectorize(loop=l4)
