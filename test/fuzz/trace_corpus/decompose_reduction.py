b0 = sch.get_block(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
b4 = sch.decompose_reduction(block=b0, loop=l1)
