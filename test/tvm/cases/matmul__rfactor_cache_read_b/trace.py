# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b6 = sch.rfactor(loop=l5, factor_axis=0)
  b7 = sch.cache_read(block=b6, read_buffer_index=1, storage_scope="global")
