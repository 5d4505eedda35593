// Pieces of the verifier shared between its source files; not a public API.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/arith/analyzer.h"
#include "ir/verify.h"

namespace tirc::verify_detail {

// Collects diagnostics of one function, prefixing each with its name.
class DiagnosticSink {
 public:
  DiagnosticSink(std::string func_name, std::vector<Diagnostic>& out)
      : func_name_(std::move(func_name)), out_(out) {}
  void report(const SourceLoc& loc, const std::string& message) {
    out_.push_back({loc, func_name_ + ": " + message});
  }

 private:
  std::string func_name_;
  std::vector<Diagnostic>& out_;
};

// Compact renderings for messages, in the spelling of the text format.
std::string expr_str(const Expr& e);
std::string access_str(const Buffer& buffer, const std::vector<Expr>& indices);  // "A[i, 130]"
std::string region_str(const BufferRegion& region);                              // "A[vi, 0:16]"
std::string shape_str(const Buffer& buffer);                                     // "(128, 128)"
std::string bound_str(const ConstIntBound& b);                                   // "[0, 255]"

// Buffers stored to by blocks named "<x>_init" seen so far, by block name: a
// reduction whose init was split off (decompose_reduction) needs no init.
using InitBlockWrites = std::map<std::string, std::set<const BufferNode*>>;

// Checks on one block. `az` has the block's iteration variables bound to
// their domains (and every enclosing variable to its range).
void check_reduce_vars_in_outputs(const BlockNode& block, const SourceLoc& loc,
                                  DiagnosticSink& sink);
void check_reduction_init(const BlockNode& block, const InitBlockWrites& init_blocks,
                          const SourceLoc& loc, DiagnosticSink& sink);
void check_region_coverage(const BlockNode& block, const Analyzer& az, const SourceLoc& loc,
                           DiagnosticSink& sink);

// Buffers the statement stores to, outside nested blocks, minus `excluded`.
std::set<const BufferNode*> direct_writes(const Stmt& s,
                                          const std::set<const BufferNode*>& excluded = {});

}  // namespace tirc::verify_detail
