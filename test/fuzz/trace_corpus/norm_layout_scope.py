b0 = sch.get_block(name="S", func_name="norm")
sch.transform_layout(block=b0, buffer=("write", 0), index_map=lambda i: (i // 4, i % 4))
sch.set_scope(block=b0, buffer_index=0, storage_scope="shared")
