b0 = sch.get_block(name="C", func_name="main")
b1 = sch.cache_read(block=b0, read_buffer_index=3, storage_scope="shared")
