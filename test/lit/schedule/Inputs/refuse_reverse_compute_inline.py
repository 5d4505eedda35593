b0 = sch.get_block(name="T_softmax", func_name="main")
sch.reverse_compute_inline(block=b0)
