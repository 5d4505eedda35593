b0 = sch.get_block(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
b4 = sch.rfactor(loop=l1, factor_axis=0)
