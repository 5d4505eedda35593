// Test programs and applications of the cache/layout primitives shared by
// the [schedule][cache] unit tests.
#pragma once

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ir/text/parser.h"
#include "schedule/schedule.h"

namespace tirc::cache_test {

inline IRModule load_example(const std::string& name) {
  std::ifstream in(std::string(TIRC_SOURCE_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_module(ss.str(), name);
}

inline IndexMap make_index_map(std::vector<Var> params, std::vector<Expr> results) {
  IndexMap m;
  m.params = std::move(params);
  m.results = std::move(results);
  return m;
}

// One primitive application on an example: the name of its expected output
// (test/unit/schedule_cache_expected/<name>.tir), the input and the steps.
struct Case {
  std::string name;
  std::string example;
  std::function<void(Schedule&)> apply;
  bool equivalent = true;  // false when the function's signature changes meaning
};

inline std::vector<Case> cases() {
  Var i = make_var("i"), j = make_var("j");
  return {
      {"cache_read_matmul", "matmul.tir",
       [](Schedule& s) { s.cache_read(s.get_block("C"), 1, "shared"); }},
      {"cache_read_softmax_consumers", "softmax.tir",
       [](Schedule& s) {
         s.cache_read(s.get_block("T_exp"), 0, "shared", {s.get_block("T_exp")});
       }},
      {"cache_read_conv2d", "conv2d_nchw.tir",
       [](Schedule& s) { s.cache_read(s.get_block("conv"), 1, "shared"); }},
      {"cache_write_matmul", "matmul.tir",
       [](Schedule& s) { s.cache_write(s.get_block("C"), 0, "local"); }},
      {"cache_write_softmax", "softmax.tir",
       [](Schedule& s) {
         s.cache_write(s.get_block("T_exp"), 0, "local", {s.get_block("T_sum")});
       }},
      {"cache_read_write_matmul", "matmul.tir",
       [](Schedule& s) {
         BlockRV c = s.get_block("C");
         s.cache_read(c, 1, "shared");
         s.cache_write(c, 0, "local");
       }},
      {"set_scope_chain", "elementwise_chain.tir",
       [](Schedule& s) { s.set_scope(s.get_block("B"), 0, "shared"); }},
      {"set_scope_softmax", "softmax.tir",
       [](Schedule& s) { s.set_scope(s.get_block("T_exp"), 0, "local"); }},
      {"storage_align_chain", "elementwise_chain.tir",
       [](Schedule& s) { s.storage_align(s.get_block("C"), 0, 0, 8, 1); }},
      {"storage_align_softmax", "softmax.tir",
       [](Schedule& s) { s.storage_align(s.get_block("T_exp"), 0, 0, 32, 4); }},
      {"transform_layout_chain", "elementwise_chain.tir",
       [=](Schedule& s) {
         s.transform_layout(s.get_block("B"), {true, 0},
                            make_index_map({i, j}, {floordiv(i, 16), j, floormod(i, 16)}));
       }},
      {"transform_layout_softmax", "softmax.tir",
       [=](Schedule& s) {
         s.transform_layout(s.get_block("T_sum"), {false, 1}, make_index_map({i, j}, {j, i}));
       }},
      {"transform_layout_param", "matmul.tir",
       [=](Schedule& s) {
         s.transform_layout(s.get_block("C"), {false, 2},
                            make_index_map({i, j}, {floordiv(j, 8), i, floormod(j, 8)}));
       },
       false},
      {"reindex_matmul", "matmul.tir",
       [](Schedule& s) {
         BlockRV c = s.get_block("C");
         s.reindex(c, {false, 2});
         s.reindex(c, {true, 0});
       }},
      {"reindex_conv2d", "conv2d_nchw.tir",
       [](Schedule& s) {
         s.reindex(s.get_block("conv"), {false, 1});
       }},
  };
}

}  // namespace tirc::cache_test
