# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="conv2d_nhwc", func_name="main")
  b1 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="global")
  l2, l3, l4, l5, l6, l7, l8 = sch.get_loops(block=b0)
  sch.reverse_compute_at(block=b1, loop=l4, preserve_unit_loops=False, index=-1)
  l9 = sch.fuse(l2, l3, preserve_unit_iters=True)
  sch.parallel(loop=l9)
  b10 = sch.get_sblock(name="pad_temp", func_name="main")
  sch.compute_at(block=b10, loop=l4, preserve_unit_loops=False, index=-1)
