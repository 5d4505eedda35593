# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  sch.set_scope(block=b0, buffer_index=0, storage_scope="local")
  l1, l2, l3 = sch.get_loops(block=b0)
  sch.unroll(loop=l3)
