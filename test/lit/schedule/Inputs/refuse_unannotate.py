b0 = sch.get_block(name="C", func_name="main")
sch.unannotate(block_or_loop=b0, ann_key="never_set")
