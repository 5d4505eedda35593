b0 = sch.get_block(name="D", func_name="main")
b1 = sch.get_block(name="C", func_name="main")
sch.reverse_compute_inline(block=b0)
sch.reverse_compute_inline(block=b1)
