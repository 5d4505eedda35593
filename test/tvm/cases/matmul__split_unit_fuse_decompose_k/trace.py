# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5, l6 = sch.split(loop=l3, factors=[None, 1, 1], preserve_unit_iters=True, disable_predication=False)
  l7 = sch.fuse(l4, l5, preserve_unit_iters=True)
  b8 = sch.decompose_reduction(block=b0, loop=l7)
  l9, l10, l11, l12 = sch.get_loops(block=b0)
  sch.unroll(loop=l11)
