# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="x_red_temp", func_name="main")
  l1, l2, l3, l4 = sch.get_loops(block=b0)
  l5 = sch.fuse(l1, l2, l3, preserve_unit_iters=True)
  l6, l7 = sch.split(loop=l5, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.parallel(loop=l6)
  b8 = sch.get_sblock(name="x_red", func_name="main")
  sch.reverse_compute_at(block=b8, loop=l7, preserve_unit_loops=False, index=-1)
