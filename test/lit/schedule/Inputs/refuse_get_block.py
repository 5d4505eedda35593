b0 = sch.get_block(name="D", func_name="main")
