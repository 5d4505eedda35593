# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="D", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  l3, l4 = sch.split(loop=l1, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  b5, = sch.get_producers(block=b0)
  sch.compute_at(block=b5, loop=l3, preserve_unit_loops=True, index=-1)
  l6, l7, l8, l9 = sch.get_loops(block=b5)
  b10 = sch.decompose_reduction(block=b5, loop=l8)
