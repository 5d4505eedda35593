# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="T_multiply", func_name="main")
  sch.compute_inline(block=b0)
  b1 = sch.get_sblock(name="T_add", func_name="main")
  sch.compute_inline(block=b1)
  b2 = sch.get_sblock(name="compute", func_name="main")
  l3, l4 = sch.get_loops(block=b2)
  sch.vectorize(loop=l4)
