b0 = sch.get_block(name="data_pad", func_name="main")
sch.compute_inline(block=b0)
