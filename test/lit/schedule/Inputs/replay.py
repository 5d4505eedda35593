b0 = sch.get_block(name="C", func_name="main")
# the block has three loops, not two
l1, l2 = sch.get_loops(block=b0)
