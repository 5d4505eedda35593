# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="conv2d_nchw", func_name="main")
  l1, l2, l3, l4, l5, l6, l7 = sch.get_loops(block=b0)
  sch.reorder(l1, l3, l2, l4, l5, l6, l7)
  b8 = sch.get_sblock(name="pad_temp", func_name="main")
  sch.compute_at(block=b8, loop=l3, preserve_unit_loops=False, index=-1)
  b9 = sch.decompose_reduction(block=b0, loop=l5)
