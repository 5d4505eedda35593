# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  b1 = sch.cache_read(block=b0, read_buffer_index=1, storage_scope="global")
  l2, l3, l4 = sch.get_loops(block=b0)
  sch.compute_at(block=b1, loop=l2, preserve_unit_loops=False, index=-1)
  b5 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b5, loop=l2, preserve_unit_loops=False, index=-1)
