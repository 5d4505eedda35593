b0 = sch.get_block(name="C", func_name="main")
sch.storage_align(block=b0, buffer_index=0, axis=2, factor=8, offset=1)
