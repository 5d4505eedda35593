# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="x_red_temp", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  b3 = sch.get_sblock(name="x_red", func_name="main")
  sch.reverse_compute_at(block=b3, loop=l1, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l1)
  l4, l5 = sch.split(loop=l2, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.unroll(loop=l5)
