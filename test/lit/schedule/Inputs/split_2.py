b0 = sch.get_block(name="C", func_name="main")
l1, l2, l3, l4 = sch.get_loops(block=b0)
l5, l6, l7 = sch.split(loop=l4, factors=[2, None, 4], preserve_unit_iters=True)
l8, l9 = sch.split(loop=l2, factors=[None, 5], preserve_unit_iters=True)
