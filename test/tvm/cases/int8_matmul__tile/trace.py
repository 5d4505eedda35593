# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  l6, l7 = sch.split(loop=l2, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  l8, l9 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l4, l6, l8, l5, l9, l7)
  sch.parallel(loop=l4)
  sch.vectorize(loop=l7)
  sch.unroll(loop=l9)
  b10 = sch.decompose_reduction(block=b0, loop=l8)
