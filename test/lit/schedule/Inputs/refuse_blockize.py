b0 = sch.get_block(name="B", func_name="main")
b1 = sch.get_block(name="D", func_name="main")
b2 = sch.blockize(target=[b0, b1], preserve_unit_iters=True)
