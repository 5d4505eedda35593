b0 = sch.get_block(name="T_max", func_name="main")
sch.compute_inline(block=b0)
