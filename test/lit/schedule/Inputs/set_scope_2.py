b0 = sch.get_block(name="T_max", func_name="main")
sch.set_scope(block=b0, buffer_index=0, storage_scope="local")
b1 = sch.get_block(name="T_exp", func_name="main")
sch.set_scope(block=b1, buffer_index=0, storage_scope="shared")
