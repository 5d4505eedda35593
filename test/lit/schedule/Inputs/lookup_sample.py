# Lookups and sampling, hand-written: positional arguments and custom names.
def apply(sch):
    blk = sch.get_block("C")
    i, j, k = sch.get_loops(blk)
    t0, t1, t2 = sch.sample_perfect_tile(i, 3, 8, [2, 4, 8])
    inner, = sch.sample_perfect_tile(k, 1, -1)
    vec = sch.sample_categorical([1, 2, 4], [0.5, 0.25, 0.25], 1)
    a, b = sch.sample_perfect_tile(j, 2, 16)
