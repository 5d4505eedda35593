# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="T_batch_matmul_NT", func_name="main")
  l1, l2, l3, l4 = sch.get_loops(block=b0)
  l5 = sch.fuse(l1, l2, preserve_unit_iters=True)
  sch.parallel(loop=l5)
  b6 = sch.decompose_reduction(block=b0, loop=l3)
  l7, l8 = sch.get_loops(block=b6)
  sch.vectorize(loop=l8)
  l9, l10, l11 = sch.get_loops(block=b0)
  sch.unroll(loop=l11)
