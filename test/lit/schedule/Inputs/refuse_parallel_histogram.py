b0 = sch.get_block(name="H", func_name="main")
l1, = sch.get_loops(block=b0)
sch.parallel(loop=l1)
