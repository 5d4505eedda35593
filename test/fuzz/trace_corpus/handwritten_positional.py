# Hand-written: def apply wrapper, positional arguments, custom names.
def apply(sch):
    blk = sch.get_block("C")
    i, j, k = sch.get_loops(blk)
    io, ii = sch.split(i, [None, 8])
    sch.reorder(io, j, k, ii)
    sch.vectorize(ii)
