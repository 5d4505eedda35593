# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="pad_temp", func_name="main")
  sch.compute_inline(block=b0)
  b1 = sch.get_sblock(name="pool_avg", func_name="main")
  l2, l3, l4, l5 = sch.get_loops(block=b1)
  b6 = sch.get_sblock(name="pool_sum", func_name="main")
  sch.compute_at(block=b6, loop=l5, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l3)
