# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l3, factors=[26, None], preserve_unit_iters=True, disable_predication=False)
  l6, l7 = sch.split(loop=l5, factors=[2, None], preserve_unit_iters=True, disable_predication=False)
  l8 = sch.fuse(l2, l4, preserve_unit_iters=True)
  l9 = sch.fuse(l6, l7, preserve_unit_iters=True)
  l10, l11 = sch.split(loop=l9, factors=[2, None], preserve_unit_iters=True, disable_predication=False)
  l12, l13 = sch.split(loop=l1, factors=[2, None], preserve_unit_iters=True, disable_predication=False)
  l14, l15 = sch.split(loop=l10, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l16, l17 = sch.split(loop=l15, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
