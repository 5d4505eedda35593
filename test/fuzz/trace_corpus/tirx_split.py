# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l2, factors=[None, 5], preserve_unit_iters=True, disable_predication=False)
  l6, l7 = sch.split(loop=l3, factors=[3, None], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l4, l1, l6, l5, l7)
