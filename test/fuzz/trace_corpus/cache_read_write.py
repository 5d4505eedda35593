b0 = sch.get_block(name="C", func_name="main")
b1 = sch.cache_read(block=b0, read_buffer_index=1, storage_scope="shared")
b2 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="local")
