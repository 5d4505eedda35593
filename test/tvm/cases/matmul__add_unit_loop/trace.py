# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4 = sch.add_unit_loop(block_or_loop=l1)
  l5 = sch.add_unit_loop(block_or_loop=b0)
