# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="PaddedInput", func_name="main")
  sch.compute_inline(block=b0)
  b1 = sch.get_sblock(name="DepthwiseConv2d", func_name="main")
  l2, l3, l4, l5, l6, l7 = sch.get_loops(block=b1)
  l8 = sch.fuse(l2, l3, preserve_unit_iters=True)
  sch.parallel(loop=l8)
  sch.unroll(loop=l6)
  sch.unroll(loop=l7)
