b0 = sch.get_block(name="B", func_name="main")
b1 = sch.get_block(name="C", func_name="main")
sch.compute_inline(block=b0)
sch.compute_inline(block=b1)
