# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4 = sch.fuse(l2, l3, preserve_unit_iters=True)
  l5, l6 = sch.split(loop=l4, factors=[499, None], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l6, l1, l5)
  l7, l8 = sch.split(loop=l5, factors=[411, None], preserve_unit_iters=True, disable_predication=False)
  l9, l10, l11 = sch.split(loop=l7, factors=[None, 137, 3], preserve_unit_iters=True, disable_predication=False)
  l12 = sch.fuse(l9, l10, preserve_unit_iters=True)
