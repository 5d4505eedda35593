# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  b1 = sch.cache_read(block=b0, read_buffer_index=0, storage_scope="global")
  b2 = sch.cache_read(block=b0, read_buffer_index=1, storage_scope="global")
  l3, l4 = sch.get_loops(block=b1)
  sch.reverse_compute_at(block=b2, loop=l3, preserve_unit_loops=False, index=-1)
