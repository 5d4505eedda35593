# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="PaddedInput", func_name="main")
  sch.storage_align(block=b0, buffer_index=0, axis=2, factor=16, offset=3)
  b1 = sch.get_sblock(name="DepthwiseConv2d", func_name="main")
  l2, l3, l4, l5, l6, l7 = sch.get_loops(block=b1)
  sch.compute_at(block=b0, loop=l3, preserve_unit_loops=False, index=-1)
