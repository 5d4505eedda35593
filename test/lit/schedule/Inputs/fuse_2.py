b0 = sch.get_block(name="pool_sum", func_name="main")
l1, l2, l3, l4, l5, l6 = sch.get_loops(block=b0)
l7 = sch.fuse(l1, l2, l3, l4, preserve_unit_iters=True)
l8 = sch.fuse(l5, l6, preserve_unit_iters=True)
