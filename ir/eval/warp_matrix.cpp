// The interpreter's warp matrix operations (ir/intrinsic.h): each is one
// statement's effect on memory. Every element of every tile is bounds-checked
// against its storage and, in checking mode, noted by the race checker like
// the loads and stores of the loops a tensorized block replaced; mma_sync
// adds the products in k order in float32, so it equals those loops bit for
// bit.
#include <array>

#include "ir/eval/compile.h"
#include "ir/eval/numeric.h"
#include "ir/intrinsic.h"

namespace tirc::eval {

namespace {

constexpr int kTile = static_cast<int>(kMmaTile);
using TileValues = std::array<double, kTile * kTile>;

// One tile argument: T.address_of of its first element and its row stride.
struct Tile {
  Access first;
  IExprPtr ld;
  std::string role;  // "a", "b", "accumulator", "destination"

  // Calls visit(index r * 16 + c, address) for each element, row by row.
  template <bool Checked, typename Visit>
  void each(Frame& f, bool write, const std::string& op, Visit visit) const {
    uint8_t* origin = first.address(f, 0);
    const View& v = f.views[first.view];
    const int64_t stride = ld->eval(f, 0);
    const auto bytes = static_cast<int64_t>(first.elem.bytes());
    const int64_t flat = (origin - v.base) / bytes;
    if (stride < kTile)
      fail(f, op + ": the " + role + " tile's row stride " + std::to_string(stride) +
                  " is less than " + std::to_string(kTile));
    if (flat + (kTile - 1) * stride + kTile > v.storage_elems)
      fail(f, op + ": the " + role + " tile at " + first.element(f, 0) + " with row stride " +
                  std::to_string(stride) + " reaches past its storage (" +
                  std::to_string(v.storage_elems) + " elements)");
    if (write && v.read_only) first.read_only_store(f, 0);
    for (int r = 0; r < kTile; ++r)
      for (int c = 0; c < kTile; ++c) {
        uint8_t* p = origin + (r * stride + c) * bytes;
        if constexpr (Checked) f.checker->note(first, f, 0, p, write);
        visit(r * kTile + c, p);
      }
  }

  template <bool Checked>
  TileValues read(Frame& f, const std::string& op) const {
    TileValues out{};
    each<Checked>(f, false, op, [&](int i, const uint8_t* p) {
      out[static_cast<size_t>(i)] = numeric::load_float(first.elem, p);
    });
    return out;
  }

  template <bool Checked>
  void write(Frame& f, const std::string& op, const TileValues& values) const {
    each<Checked>(f, true, op, [&](int i, uint8_t* p) {
      numeric::store_float(first.elem, p, values[static_cast<size_t>(i)]);
    });
  }

  [[noreturn]] void fail(Frame&, const std::string& what) const {
    throw Error("interpreter: " + what + (first.where ? first.where->describe() : ""),
                first.where ? first.where->loc : SourceLoc{});
  }
};

template <bool Checked>
struct SWarpMatrix final : CStmt {
  IntrinsicId id = IntrinsicId::MmaFill;
  std::string op;           // "T.mma_sync", for errors
  std::vector<Tile> tiles;  // in argument order
  FExprPtr value;           // mma_fill's

  void exec(Frame& f) const override {
    switch (id) {
      case IntrinsicId::MmaFill: {
        TileValues v;
        v.fill(value->eval(f, 0));
        tiles[0].write<Checked>(f, op, v);
        return;
      }
      case IntrinsicId::MmaSync: {
        const TileValues a = tiles[1].read<Checked>(f, op);
        const TileValues b = tiles[2].read<Checked>(f, op);
        TileValues acc = tiles[0].read<Checked>(f, op);
        for (int r = 0; r < kTile; ++r)
          for (int c = 0; c < kTile; ++c) {
            // float16/bfloat16 products are exact in float32; each sum rounds.
            float sum = static_cast<float>(acc[static_cast<size_t>(r * kTile + c)]);
            for (int k = 0; k < kTile; ++k)
              sum += static_cast<float>(a[static_cast<size_t>(r * kTile + k)]) *
                     static_cast<float>(b[static_cast<size_t>(k * kTile + c)]);
            acc[static_cast<size_t>(r * kTile + c)] = sum;
          }
        tiles[0].write<Checked>(f, op, acc);
        return;
      }
      default:
        tiles[0].write<Checked>(f, op, tiles[1].read<Checked>(f, op));
        return;
    }
  }
};

}  // namespace

CStmtPtr compile_warp_matrix(CompileContext& cx, const CallNode& c, const Intrinsic& in) {
  const std::string op = "T." + std::string(in.name);
  if (c.args.size() != static_cast<size_t>(in.arity))
    throw Error("interpreter: " + op + " takes " + std::to_string(in.arity) + " arguments, got " +
                    std::to_string(c.args.size()),
                cx.where() ? cx.where()->loc : SourceLoc{});
  auto fill = [&](auto n) -> CStmtPtr {
    n->id = in.id;
    n->op = op;
    // (tile, stride) pairs; mma_fill's value follows its one pair.
    static const char* const kRoles[3][3] = {
        {"accumulator"}, {"accumulator", "a", "b"}, {"destination", "accumulator"}};
    const int row = in.id == IntrinsicId::MmaFill ? 0 : in.id == IntrinsicId::MmaSync ? 1 : 2;
    for (size_t i = 0; i < warp_matrix_tiles(in.id); ++i) {
      const BufferLoadNode* load = address_of_element(c.args[2 * i]);
      if (!load)
        throw Error("interpreter: " + op + " needs T.address_of(buf[...]) tiles",
                    cx.where() ? cx.where()->loc : SourceLoc{});
      Tile t;
      t.first = compile_access(cx, load->buffer, load->indices, i == 0);
      t.ld = compile_int(cx, c.args[2 * i + 1]);
      t.role = kRoles[row][i];
      n->tiles.push_back(std::move(t));
    }
    if (in.id == IntrinsicId::MmaFill) n->value = compile_float(cx, c.args[2]);
    return n;
  };
  if (cx.checking) return fill(std::make_unique<SWarpMatrix<true>>());
  return fill(std::make_unique<SWarpMatrix<false>>());
}

}  // namespace tirc::eval
