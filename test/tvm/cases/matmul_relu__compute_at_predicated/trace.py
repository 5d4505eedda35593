# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 3], preserve_unit_iters=True, disable_predication=False)
  b6 = sch.get_sblock(name="D", func_name="main")
  l7, l8 = sch.get_loops(block=b6)
  l9, l10 = sch.split(loop=l7, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.compute_at(block=b0, loop=l9, preserve_unit_loops=False, index=-1)
