# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5, l6 = sch.split(loop=l3, factors=[None, 16, 1], preserve_unit_iters=True, disable_predication=False)
  l7, l8, l9 = sch.split(loop=l5, factors=[None, 8, 2], preserve_unit_iters=True, disable_predication=False)
  l10 = sch.fuse(l7, l8, preserve_unit_iters=True)
  l11, l12 = sch.split(loop=l2, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  l13 = sch.fuse(l9, l6, preserve_unit_iters=True)
  l14, l15 = sch.split(loop=l13, factors=[2, None], preserve_unit_iters=True, disable_predication=False)
  l16, l17 = sch.split(loop=l12, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  l18 = sch.fuse(l4, l10, preserve_unit_iters=True)
