# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="pool_max", func_name="main")
  l1, l2, l3, l4, l5, l6 = sch.get_loops(block=b0)
  b7 = sch.rfactor(loop=l6, factor_axis=0)
