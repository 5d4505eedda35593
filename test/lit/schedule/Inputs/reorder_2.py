b0 = sch.get_block(name="C", func_name="main")
l1, l2, l3, l4 = sch.get_loops(block=b0)
sch.reorder(l4, l2, l1)
