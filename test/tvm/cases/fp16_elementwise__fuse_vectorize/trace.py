# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  sch.compute_inline(block=b0)
  b1 = sch.get_sblock(name="D", func_name="main")
  l2, l3 = sch.get_loops(block=b1)
  l4 = sch.fuse(l2, l3, preserve_unit_iters=True)
  l5, l6 = sch.split(loop=l4, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  sch.parallel(loop=l5)
  sch.vectorize(loop=l6)
