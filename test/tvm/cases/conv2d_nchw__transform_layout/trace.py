# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="pad_temp", func_name="main")
  sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda n, c, h, w: (n, c // 2, h, w, c % 2,), pad_value=None, assume_injective_transform=False)
  b1 = sch.get_sblock(name="conv2d_nchw", func_name="main")
  l2, l3, l4, l5, l6, l7, l8 = sch.get_loops(block=b1)
  l9, l10 = sch.split(loop=l6, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l2, l3, l9, l4, l7, l8, l5, l10)
