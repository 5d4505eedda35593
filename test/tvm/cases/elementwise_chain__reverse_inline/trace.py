# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="D", func_name="main")
  sch.reverse_compute_inline(block=b0)
  b1 = sch.get_sblock(name="T_exp", func_name="main")
  sch.reverse_compute_inline(block=b1)
  b2 = sch.get_sblock(name="T_relu", func_name="main")
  sch.reverse_compute_inline(block=b2)
  b3 = sch.get_sblock(name="T_add", func_name="main")
  l4, l5 = sch.get_loops(block=b3)
  b6 = sch.get_sblock(name="T_mul", func_name="main")
  l7, l8 = sch.get_loops(block=b6)
  sch.compute_at(block=b3, loop=l8, preserve_unit_loops=False, index=-1)
