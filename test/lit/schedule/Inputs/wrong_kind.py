def apply(sch):
    blk = sch.get_block("C")
    loops = sch.get_loops(blk)
