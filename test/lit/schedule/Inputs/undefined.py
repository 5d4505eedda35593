b0 = sch.get_block(name="C", func_name="main")
sch.parallel(loop=l7)
