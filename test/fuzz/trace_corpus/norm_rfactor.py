b0 = sch.get_block(name="S", func_name="norm")
l1, l2 = sch.get_loops(block=b0)
l3, l4 = sch.split(loop=l2, factors=[4, None], preserve_unit_iters=True)
b5 = sch.rfactor(loop=l3, factor_axis=0)
