b0 = sch.get_block(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
l4 = sch.fuse(l1, l2, preserve_unit_iters=True)
sch.unroll(loop=l3)
