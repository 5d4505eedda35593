b0 = sch.get_block(name="C", func_name="main")
sch.set_scope(block=b0, buffer_index=0, storage_scope="shared")
