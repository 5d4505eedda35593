b0 = sch.get_block(name="C", func_name="main")
l1, l2 = sch.get_loops(block=b0)
sch.parallel(loop=l2)
