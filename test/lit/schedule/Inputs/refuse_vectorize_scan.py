b0 = sch.get_block(name="C", func_name="main")
l1, = sch.get_loops(block=b0)
sch.vectorize(loop=l1)
