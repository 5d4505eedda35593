# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="conv2d_nhwc", func_name="main")
  l1, l2, l3, l4, l5, l6, l7 = sch.get_loops(block=b0)
  v8, v9 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=2, decision=[2, 2])
  v10, v11 = sch.sample_perfect_tile(loop=l4, n=2, max_innermost_factor=8, decision=[2, 4])
  l12, l13 = sch.split(loop=l2, factors=[v8, v9], preserve_unit_iters=True, disable_predication=False)
  l14, l15 = sch.split(loop=l4, factors=[v10, v11], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l1, l12, l14, l3, l5, l6, l7, l13, l15)
  sch.vectorize(loop=l15)
  b16 = sch.get_sblock(name="pad_temp", func_name="main")
  sch.compute_inline(block=b16)
