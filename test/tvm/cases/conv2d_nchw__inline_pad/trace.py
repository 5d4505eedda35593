# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="pad_temp", func_name="main")
  sch.compute_inline(block=b0)
  b1 = sch.get_sblock(name="conv2d_nchw", func_name="main")
  l2, l3, l4, l5, l6, l7, l8 = sch.get_loops(block=b1)
  sch.reorder(l2, l3, l6, l7, l8, l4, l5)
  l9 = sch.fuse(l2, l3, preserve_unit_iters=True)
  sch.parallel(loop=l9)
  sch.vectorize(loop=l5)
