# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="T_softmax_exp", func_name="main")
  sch.compute_inline(block=b0)
  b1 = sch.get_sblock(name="T_softmax_expsum", func_name="main")
  l2, l3 = sch.get_loops(block=b1)
  l4, l5 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b6 = sch.rfactor(loop=l5, factor_axis=0)
