b0 = sch.get_block(name="relu", func_name="main")
sch.reverse_compute_inline(block=b0)
