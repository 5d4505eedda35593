# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="conv2d_nchw", func_name="main")
  l1, l2, l3, l4, l5, l6, l7 = sch.get_loops(block=b0)
  sch.reorder(l5, l7, l6, l4, l3, l1, l2)
  l8, l9 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l1, l7, l5)
  l10, l11 = sch.split(loop=l6, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l12, l13 = sch.split(loop=l11, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l14, l15 = sch.split(loop=l10, factors=[2, None], preserve_unit_iters=True, disable_predication=False)
  l16, l17 = sch.split(loop=l9, factors=[4, None], preserve_unit_iters=True, disable_predication=False)
  l18, l19, l20 = sch.split(loop=l4, factors=[None, 2, 1], preserve_unit_iters=True, disable_predication=False)
