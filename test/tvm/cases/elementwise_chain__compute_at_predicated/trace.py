# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="T_add", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  l3, l4 = sch.split(loop=l2, factors=[None, 5], preserve_unit_iters=True, disable_predication=False)
  b5 = sch.get_sblock(name="T_mul", func_name="main")
  l6, l7 = sch.get_loops(block=b5)
  l8, l9 = sch.split(loop=l7, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.compute_at(block=b0, loop=l8, preserve_unit_loops=False, index=-1)
