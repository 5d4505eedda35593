# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="T_batch_matmul_NT", func_name="main")
  l1, l2, l3, l4 = sch.get_loops(block=b0)
  l5, l6, l7 = sch.split(loop=l3, factors=[None, 3, 1], preserve_unit_iters=True, disable_predication=False)
  l8, l9 = sch.split(loop=l1, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l2, l4, l8)
  sch.reorder(l8, l4, l9, l6)
  l10 = sch.fuse(l9, l7, preserve_unit_iters=True)
  l11, l12 = sch.split(loop=l5, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l13, l14 = sch.split(loop=l4, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  l15, l16 = sch.split(loop=l10, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
