# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=3, max_innermost_factor=4, decision=[1, 8, 2])
  v7, v8 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=8, decision=[3, 8])
  v9, v10 = sch.sample_perfect_tile(loop=l3, n=2, max_innermost_factor=16, decision=[8, 4])
  l11, l12, l13 = sch.split(loop=l1, factors=[v4, v5, v6], preserve_unit_iters=True, disable_predication=False)
  l14, l15 = sch.split(loop=l2, factors=[v7, v8], preserve_unit_iters=True, disable_predication=False)
  l16, l17 = sch.split(loop=l3, factors=[v9, v10], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l11, l14, l12, l16, l17, l13, l15)
