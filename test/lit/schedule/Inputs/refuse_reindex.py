b0 = sch.get_block(name="C", func_name="main")
b1 = sch.reindex(block=b0, buffer=("read", 0))
