b0 = sch.get_block(name="C", func_name="main")
sch.tensorize(block_or_loop=b0, tensor_intrin="wmma_16x16x16", preserve_unit_iters=True)
