// Which parts of which buffers a block reads and writes.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/stmt.h"

namespace tirc {

struct AccessRegions {
  std::vector<BufferRegion> reads;
  std::vector<BufferRegion> writes;
};

// Regions accessed by the block's init and body, in terms of the block's own
// iteration variables (loops inside the block are relaxed over their ranges;
// buffers allocated inside the block are excluded). One region per buffer,
// the union of all its accesses, in order of first access; for a store, the
// value's loads come before the store. A buffer both read and written appears
// in both lists (reduction blocks read their output), as TVM infers them.
AccessRegions infer_access_regions(const BlockNode& block);

// Relaxes one access (a point per index) over `dom` (variables to relax and
// their ranges) into a region; variables not in dom stay symbolic.
BufferRegion relax_access(const Buffer& buffer, const std::vector<Expr>& indices,
                          const std::unordered_map<const VarNode*, Range>& dom);

}  // namespace tirc
