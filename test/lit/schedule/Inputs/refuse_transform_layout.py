b0 = sch.get_block(name="C", func_name="main")
sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i, j: (i // 2,))
