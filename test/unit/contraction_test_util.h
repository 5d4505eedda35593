// Lowered-form contraction nests as TIR text, for the contraction plan and
// emitter tests: three flat float32 parameters A, B, C and one loop nest.
#pragma once

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/text/parser.h"

namespace tirc::test {

struct NestLoop {
  std::string var;
  int64_t extent = 1;
  std::string kind = "range";  // or "T.vectorized", "T.unroll", "T.parallel", "T.serial"
};

// `@T.prim_func def main(A, B, C)` whose body is the given loops around `stmt`.
inline std::string nest_text(int64_t a_size, int64_t b_size, int64_t c_size,
                             const std::vector<NestLoop>& loops, const std::string& stmt) {
  std::ostringstream os;
  os << "@T.prim_func\ndef main(A: T.Buffer((" << a_size << ",), \"float32\"), B: T.Buffer(("
     << b_size << ",), \"float32\"), C: T.Buffer((" << c_size << ",), \"float32\")):\n";
  std::string indent = "    ";
  for (const auto& l : loops) {
    os << indent << "for " << l.var << " in " << l.kind << "(" << l.extent << "):\n";
    indent += "    ";
  }
  os << indent << stmt << "\n";
  return os.str();
}

inline std::string update_stmt(const std::string& c, const std::string& a, const std::string& b) {
  return "C[" + c + "] = C[" + c + "] + A[" + a + "] * B[" + b + "]";
}

// C[M, N] = init, then C += A[M, K] * B[K, N], per block of `rows` rows: an
// outer loop io whose body is the init nest over the tile (`init_loops`:
// "i j" as the tile, "j i" transposed) and then the update nest (k, i, j).
// `init` is the init's value, in terms of io, i and j; `c_shift` moves the
// init's C offset. A holds M * K + M elements, B K * N + N.
struct InitNestSpec {
  int64_t m = 8, n = 16, k = 4, rows = 4;
  std::string init = "T.float32(0)";
  std::string init_loops = "i j";
  int64_t c_shift = 0;
};

inline std::string init_nest_text(const InitNestSpec& s) {
  const std::string r = std::to_string(s.rows), n = std::to_string(s.n), k = std::to_string(s.k);
  const std::string row = "(io * " + r + " + i)";
  std::ostringstream os;
  os << "@T.prim_func\ndef main(A: T.Buffer((" << s.m * s.k + s.m
     << ",), \"float32\"), B: T.Buffer((" << s.k * s.n + s.n
     << ",), \"float32\"), C: T.Buffer((" << s.m * s.n + s.n << ",), \"float32\")):\n"
     << "    for io in range(" << s.m / s.rows << "):\n";
  if (s.init_loops == "i j")
    os << "        for i in range(" << r << "):\n            for j in range(" << n << "):\n";
  else
    os << "        for j in range(" << n << "):\n            for i in range(" << r << "):\n";
  os << "                C[" << row << " * " << n << " + j + " << s.c_shift << "] = " << s.init
     << "\n"
     << "        for kk in range(" << k << "):\n            for i in range(" << r
     << "):\n                for j in range(" << n << "):\n                    "
     << update_stmt(row + " * " + n + " + j", row + " * " + k + " + kk", "kk * " + n + " + j")
     << "\n";
  return os.str();
}

inline PrimFunc parse_single(const std::string& text) {
  IRModule m = parse_module(text);
  return m.functions().front().second;
}

inline const ForNode& root_for(const PrimFunc& f) {
  const ForNode* loop = f->body.as<ForNode>();
  if (!loop) throw Error("test program's body is not a loop");
  return *loop;
}

// C[M,N] += A[M,K] * B[K,N] with i, j, k split by ti, tj, tk into d0 (outer)
// and d1 (inner) loops, emitted in `order` (names i0 i1 j0 j1 k0 k1; loops of
// extent 1 are left out). a_transposed: A is [K,M]. vector_kind: loop kind of j1.
struct MatmulSpec {
  int64_t m = 16, n = 16, k = 16;
  int64_t ti = 1, tj = 0, tk = 0;  // 0: the whole extent in the inner loop
  std::vector<std::string> order = {"i0", "j0", "k0", "i1", "j1", "k1"};
  bool a_transposed = false;
  bool b_transposed = false;
  std::string j1_kind = "range";
};

inline std::string matmul_text(const MatmulSpec& s) {
  auto tile = [](int64_t t, int64_t n) { return t == 0 ? n : t; };
  int64_t ti = tile(s.ti, s.m), tj = tile(s.tj, s.n), tk = tile(s.tk, s.k);
  std::map<std::string, int64_t> ext = {{"i0", s.m / ti}, {"i1", ti},       {"j0", s.n / tj},
                                        {"j1", tj},       {"k0", s.k / tk}, {"k1", tk}};
  std::vector<NestLoop> loops;
  for (const auto& name : s.order)
    if (ext.at(name) > 1) loops.push_back({name, ext.at(name), name == "j1" ? s.j1_kind : "range"});
  auto dim = [&](const std::string& d, int64_t t) {
    std::string outer = ext.at(d + "0") > 1 ? d + "0" : "",
                inner = ext.at(d + "1") > 1 ? d + "1" : "";
    if (outer.empty() && inner.empty()) return std::string("0");
    if (outer.empty()) return inner;
    std::string o = "(" + outer + " * " + std::to_string(t) + ")";
    return inner.empty() ? o : "(" + o + " + " + inner + ")";
  };
  std::string i = dim("i", ti), j = dim("j", tj), k = dim("k", tk);
  std::string c = i + " * " + std::to_string(s.n) + " + " + j;
  std::string a = s.a_transposed ? k + " * " + std::to_string(s.m) + " + " + i
                                 : i + " * " + std::to_string(s.k) + " + " + k;
  std::string b = s.b_transposed ? j + " * " + std::to_string(s.k) + " + " + k
                                 : k + " * " + std::to_string(s.n) + " + " + j;
  return nest_text(s.m * s.k, s.k * s.n, s.m * s.n, loops, update_stmt(c, a, b));
}

}  // namespace tirc::test
