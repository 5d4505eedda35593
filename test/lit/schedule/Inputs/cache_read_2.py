b0 = sch.get_block(name="conv", func_name="main")
b1 = sch.cache_read(block=b0, read_buffer_index=2, storage_scope="local")
