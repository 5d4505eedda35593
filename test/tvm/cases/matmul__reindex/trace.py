# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  b1 = sch.reindex(block=b0, buffer=("write", 0))
  b2 = sch.reindex(block=b0, buffer=("read", 1))
