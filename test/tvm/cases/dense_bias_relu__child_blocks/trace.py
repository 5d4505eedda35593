# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3 = sch.get_child_blocks(b0)
  sch.compute_inline(block=b2)
  l4, l5, l6 = sch.get_loops(block=b1)
  l7, l8 = sch.split(loop=l5, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l4, l7, l6, l8)
  sch.reverse_compute_at(block=b3, loop=l7, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l4)
