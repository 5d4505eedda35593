# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="conv2d_nhwc", func_name="main")
  l1, l2, l3, l4, l5, l6, l7 = sch.get_loops(block=b0)
  sch.reorder(l4, l6, l1)
  sch.reorder(l6, l7, l1, l2, l4, l5)
  l8, l9 = sch.split(loop=l5, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l10, l11 = sch.split(loop=l8, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l12, l13 = sch.split(loop=l9, factors=[2, None], preserve_unit_iters=True, disable_predication=False)
  l14, l15 = sch.split(loop=l12, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l16, l17 = sch.split(loop=l7, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l18, l19 = sch.split(loop=l11, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l20 = sch.fuse(l2, l4, preserve_unit_iters=True)
  l21 = sch.fuse(l14, l15, preserve_unit_iters=True)
