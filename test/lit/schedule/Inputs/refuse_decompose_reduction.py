b0 = sch.get_block(name="T_exp", func_name="main")
l1, l2 = sch.get_loops(block=b0)
b3 = sch.decompose_reduction(block=b0, loop=l1)
