b0 = sch.get_block(name="S", func_name="norm")
sch.storage_align(block=b0, buffer_index=0, axis=0, factor=8, offset=1)
