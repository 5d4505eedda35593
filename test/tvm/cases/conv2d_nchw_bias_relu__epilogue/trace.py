# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="conv2d_nchw", func_name="main")
  b1 = sch.get_sblock(name="T_add", func_name="main")
  sch.compute_inline(block=b1)
  l2, l3, l4, l5, l6, l7, l8 = sch.get_loops(block=b0)
  b9 = sch.get_sblock(name="compute", func_name="main")
  sch.reverse_compute_at(block=b9, loop=l3, preserve_unit_loops=False, index=-1)
  b10 = sch.get_sblock(name="pad_temp", func_name="main")
  sch.compute_at(block=b10, loop=l3, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l3)
