# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="T_softmax_norm", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  b3 = sch.get_sblock(name="T_softmax_expsum", func_name="main")
  sch.compute_at(block=b3, loop=l1, preserve_unit_loops=False, index=-1)
  b4 = sch.get_sblock(name="T_softmax_exp", func_name="main")
  sch.compute_at(block=b4, loop=l1, preserve_unit_loops=False, index=-1)
  b5 = sch.get_sblock(name="T_softmax_maxelem", func_name="main")
  sch.compute_at(block=b5, loop=l1, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l1)
  sch.vectorize(loop=l2)
