# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="T_mul", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  l3 = sch.fuse(l1, l2, preserve_unit_iters=True)
  l4, l5 = sch.split(loop=l3, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l4, thread_axis="blockIdx.x")
  sch.bind(loop=l5, thread_axis="threadIdx.x")
