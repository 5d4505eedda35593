b0 = sch.get_block(name="C", func_name="main")
b1 = sch.reindex(block=b0, buffer=("read", 1))
l2, l3, l4 = sch.get_loops(block=b0)
b5 = sch.blockize(target=l3, preserve_unit_iters=True)
