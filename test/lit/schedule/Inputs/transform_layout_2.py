b0 = sch.get_block(name="T_exp", func_name="main")
sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i, j: (j // 8, i, j % 8))
