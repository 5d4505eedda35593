# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  b1 = sch.cache_read(block=b0, read_buffer_index=1, storage_scope="global")
  sch.transform_layout(block=b1, buffer=("write", 0), index_map=lambda k, j: (j // 8, k, j % 8,), pad_value=None, assume_injective_transform=False)
  l2, l3, l4 = sch.get_loops(block=b0)
  l5, l6 = sch.split(loop=l3, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l5, l2, l4, l6)
