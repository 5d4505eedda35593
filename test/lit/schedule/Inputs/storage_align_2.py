b0 = sch.get_block(name="T_exp", func_name="main")
sch.storage_align(block=b0, buffer_index=0, axis=0, factor=16, offset=4)
