b0 = sch.get_block(name="T_layer_norm", func_name="main")
l1, l2 = sch.get_loops(block=b0)
sch.vectorize(loop=l2)
