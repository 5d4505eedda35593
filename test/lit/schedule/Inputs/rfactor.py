b0 = sch.get_block(name="T_max", func_name="main")
l1, l2 = sch.get_loops(block=b0)
b3 = sch.rfactor(loop=l2, factor_axis=0)
