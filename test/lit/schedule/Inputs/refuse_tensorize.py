b0 = sch.get_block(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
sch.tensorize(block_or_loop=l2, tensor_intrin="vec16_fma_f32", preserve_unit_iters=True)
