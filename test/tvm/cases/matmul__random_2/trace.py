# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l5, l4, l2)
  l6 = sch.fuse(l2, l3, preserve_unit_iters=True)
  l7 = sch.fuse(l4, l6, preserve_unit_iters=True)
  l8 = sch.fuse(l5, l7, preserve_unit_iters=True)
  l9, l10 = sch.split(loop=l8, factors=[None, 128], preserve_unit_iters=True, disable_predication=False)
  l11 = sch.fuse(l9, l10, preserve_unit_iters=True)
  l12, l13, l14 = sch.split(loop=l11, factors=[None, 12, 4], preserve_unit_iters=True, disable_predication=False)
  l15, l16 = sch.split(loop=l13, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  l17 = sch.fuse(l15, l16, preserve_unit_iters=True)
