# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  b1 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="global")
  l2, l3, l4 = sch.get_loops(block=b0)
  l5, l6 = sch.split(loop=l2, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  l7, l8 = sch.split(loop=l3, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l5, l7, l4, l6, l8)
  sch.reverse_compute_at(block=b1, loop=l7, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l5)
