// Emits a planned contraction nest: outer loops with pointer increments, the C
// tile in accumulators, counted reduction loops and unrolled FMAs whose
// operand loads are scheduled so that no value ever needs a spill.
#include "codegen/x86/contraction_emit.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "codegen/x86/contraction_plan.h"

namespace tirc {
namespace {

using Role = ContractionPlan::LoopRole;
using namespace Xbyak;

constexpr int64_t kF32 = 4;

bool fits_i32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// One FMA of a reduction step: acc += vector operand * broadcast operand
// (with both_vectors, the second operand is a whole vector too).
struct Fma {
  int acc = 0;
  int64_t vdisp = 0;  // bytes from the vector operand's pointer
  int64_t sdisp = 0;  // bytes from the broadcast (or second vector) operand's pointer
  bool tail = false;  // the operands are the masked last vector
  // A guarded operand whose guard fails here: a zero vector instead of a load.
  bool zero_v = false, zero_s = false;
};

// One iteration of the unrolled reduction loops: the operands' byte offsets
// and every loop's iteration (for guards; reduction loops only).
struct Step {
  int64_t da = 0, db = 0;
  std::vector<int64_t> iteration;
};

class ContractionEmitter {
 public:
  ContractionEmitter(EmitContext& ctx, const ContractionPlan& plan, std::vector<Reg64> gprs,
                     std::vector<int> vregs)
      : ctx_(ctx), c_(ctx.code()), plan_(plan), avx512_(ctx.target().isa == Isa::avx512) {
    pa_ = gprs[0];
    pb_ = gprs[1];
    pc_ = gprs[2];
    tmp_ = gprs[3];
    counters_.assign(gprs.begin() + 4, gprs.end());
    if (plan.init.load) {
      pi_ = counters_.back();
      counters_.pop_back();
    }
    for (int i = 0; i < plan.accumulators; ++i) acc_.push_back(vregs[i]);
    size_t next = plan.accumulators;
    if (!avx512_ && plan.vector_tail) avx2_mask_ = vregs[next++];
    // A stride-2 vector operand: AVX-512 keeps the permute index in a
    // register and needs one for the upper half of a masked load; AVX2 needs
    // the upper half and two masks only for the masked last vector.
    if (plan.vector_stride != 1 && avx512_) {
      perm_index_ = vregs[next++];
      if (plan.vector_tail) half_ = vregs[next++];
    } else if (plan.vector_stride != 1 && plan.vector_tail) {
      half_ = vregs[next++];
      low_mask_ = vregs[next++];
      high_mask_ = vregs[next++];
    }
    free_.assign(vregs.begin() + static_cast<long>(next), vregs.end());
    const auto& vl = plan.loops[plan.vector_loop];
    for (int i = plan.tile_scope; i < static_cast<int>(plan.loops.size()); ++i)
      if (plan.loops[i].stride_c != 0) tile_loops_.push_back(i);
    chunks_ = (vl.extent + plan.vector_lanes - 1) / plan.vector_lanes;
  }

  void emit() {
    int counted = 0;
    for (const auto& l : plan_.loops)
      if (needs_counter(l)) ++counted;
    stack_counters_ = std::max(0, counted - static_cast<int>(counters_.size()));
    // Addresses first: the general emitter finds stack allocations and spilled
    // values relative to rsp, which must not have moved yet.
    setup_pointer(plan_.a, pa_);
    setup_pointer(plan_.b, pb_);
    setup_pointer(plan_.c, pc_);
    if (plan_.init.load) setup_pointer(plan_.init.value, pi_);
    if (plan_.vector_tail) setup_tail_mask();
    if (plan_.vector_stride != 1) setup_strided_loads();
    if (stack_counters_ > 0) c_.sub(c_.rsp, 128 + 8 * stack_counters_);  // past any red zone
    emit_loop(0);
    if (stack_counters_ > 0) c_.add(c_.rsp, 128 + 8 * stack_counters_);
  }

 private:
  bool needs_counter(const ContractionPlan::Loop& l) const {
    if (l.role == Role::Outer) return l.extent > 1;
    if (l.role == Role::TileLoop) return l.extent / l.unroll > 1;
    return false;
  }

  void add_imm(const Reg64& r, int64_t v) {
    if (v == 0) return;
    if (fits_i32(v)) {
      c_.add(r, static_cast<uint32_t>(static_cast<int32_t>(v)));
    } else {
      c_.mov(tmp_, v);
      c_.add(r, tmp_);
    }
  }

  void setup_pointer(const ContractionPlan::Access& acc, const Reg64& dst) {
    ctx_.load_address(acc.data, dst);
    if (auto k = as_const_int(acc.offset)) {
      add_imm(dst, *k * kF32);
    } else {
      ctx_.eval_int(acc.offset, tmp_);
      c_.lea(dst, c_.ptr[dst + tmp_ * 4]);
    }
  }

  void setup_tail_mask() {
    if (avx512_) {
      c_.mov(tmp_.cvt32(), (1u << plan_.vector_tail) - 1);
      c_.kmovw(c_.k1, tmp_.cvt32());
    } else {
      std::vector<uint8_t> bytes(32, 0);
      for (int i = 0; i < plan_.vector_tail * 4; ++i) bytes[i] = 0xff;
      c_.vmovups(Ymm(avx2_mask_), ctx_.constants().table(bytes, 32));
    }
  }

  // Masks of the two loads that make a masked last vector of a stride-2
  // operand: lanes t of it need elements 0..2t-2; the low load covers
  // elements 0..lanes-1, the high one elements lanes-1..2*lanes-2.
  uint32_t strided_low_bits() const {
    const int last = 2 * plan_.vector_tail - 2;
    return (1u << (std::min(last, plan_.vector_lanes - 1) + 1)) - 1;
  }
  uint32_t strided_high_bits() const {
    const int last = 2 * plan_.vector_tail - 2 - (plan_.vector_lanes - 1);
    return last < 0 ? 0 : (1u << (last + 1)) - 1;
  }
  std::vector<uint8_t> lane_mask_bytes(uint32_t bits) const {
    std::vector<uint8_t> bytes(32, 0);
    for (int l = 0; l < 8; ++l)
      if (bits >> l & 1)
        for (int b = 0; b < 4; ++b) bytes[4 * l + b] = 0xff;
    return bytes;
  }

  void setup_strided_loads() {
    if (avx512_) {
      // Lane i takes element 2i: from the low load (elements 0..15) for
      // i < 8, else from the high load (elements 15..30), as table index
      // 16 + (2i - 15).
      std::vector<uint8_t> index(64, 0);
      for (uint32_t i = 0; i < 16; ++i) {
        const uint32_t v = i < 8 ? 2 * i : 2 * i + 1;
        std::memcpy(&index[4 * i], &v, 4);
      }
      c_.vmovups(Zmm(perm_index_), ctx_.constants().table(index, 64));
      if (plan_.vector_tail) {
        c_.mov(tmp_.cvt32(), strided_low_bits());
        c_.kmovw(c_.k2, tmp_.cvt32());
        c_.mov(tmp_.cvt32(), strided_high_bits());
        c_.kmovw(c_.k3, tmp_.cvt32());
      }
    } else if (plan_.vector_tail) {
      c_.vmovups(Ymm(low_mask_), ctx_.constants().table(lane_mask_bytes(strided_low_bits()), 32));
      c_.vmovups(Ymm(high_mask_), ctx_.constants().table(lane_mask_bytes(strided_high_bits()), 32));
    }
  }

  // The vector operand at byte displacement d from p: one load, or for a
  // stride-2 operand the even elements of two overlapping loads (the high
  // one starts at the last element of the low one, so neither reads an
  // element the nest does not).
  void load_operand(int reg, const Reg64& p, int64_t d, bool tail) {
    if (plan_.vector_stride == 1) {
      load_vector(reg, mem(p, d), tail);
      return;
    }
    const int64_t high = d + (plan_.vector_lanes - 1) * kF32;
    const bool need_high = !tail || strided_high_bits() != 0;
    if (avx512_) {
      if (!tail) {
        c_.vmovups(Zmm(reg), mem(p, d));
        c_.vpermt2ps(Zmm(reg), Zmm(perm_index_), mem(p, high));
        return;
      }
      c_.vmovups(Zmm(reg) | c_.k2 | c_.T_z, mem(p, d));
      if (need_high) c_.vmovups(Zmm(half_) | c_.k3 | c_.T_z, mem(p, high));
      c_.vpermt2ps(Zmm(reg), Zmm(perm_index_), Zmm(need_high ? half_ : reg));
      return;
    }
    // AVX2: within each 128-bit half, elements 0 and 2 of the low load and
    // 1 and 3 of the high one (shufps 0xD8), then the 64-bit pairs in order
    // 0, 2, 1, 3 (permpd 0xD8).
    if (!tail) {
      c_.vmovups(Ymm(reg), mem(p, d));
      c_.vshufps(Ymm(reg), Ymm(reg), mem(p, high), 0xD8);
    } else {
      c_.vmaskmovps(Ymm(reg), Ymm(low_mask_), mem(p, d));
      if (need_high) c_.vmaskmovps(Ymm(half_), Ymm(high_mask_), mem(p, high));
      c_.vshufps(Ymm(reg), Ymm(reg), Ymm(need_high ? half_ : reg), 0xD8);
    }
    c_.vpermpd(Ymm(reg), Ymm(reg), 0xD8);
  }

  // A counted loop: `steps` iterations of body(), then the pointers move by
  // their per-step strides (di: the init value's); afterwards they are moved back.
  template <class Body>
  void counted_loop(int64_t steps, int64_t da, int64_t db, int64_t dc, int64_t di, Body body) {
    if (steps == 1) {
      body();
      return;
    }
    std::optional<Reg64> reg;
    int slot = -1;
    if (next_counter_ < static_cast<int>(counters_.size()) && used_stack_ >= stack_counters_) {
      reg = counters_[next_counter_++];
      c_.mov(*reg, steps);
    } else if (used_stack_ < stack_counters_) {
      slot = used_stack_++;
      c_.mov(tmp_, steps);
      c_.mov(c_.qword[c_.rsp + 8 * slot], tmp_);
    } else {
      reg = counters_[next_counter_++];
      c_.mov(*reg, steps);
    }
    Label top;
    c_.L(top);
    body();
    add_imm(pa_, da);
    add_imm(pb_, db);
    add_imm(pc_, dc);
    if (plan_.init.load) add_imm(pi_, di);
    if (reg)
      c_.dec(*reg);
    else
      c_.dec(c_.qword[c_.rsp + 8 * slot]);
    c_.jnz(top, CodeGenerator::T_NEAR);
    add_imm(pa_, -da * steps);
    add_imm(pb_, -db * steps);
    add_imm(pc_, -dc * steps);
    if (plan_.init.load) add_imm(pi_, -di * steps);
    if (reg)
      --next_counter_;
    else
      --used_stack_;
  }

  void emit_loop(int i) {
    if (i == plan_.tile_scope) {
      emit_tile();
      return;
    }
    const auto& l = plan_.loops[i];
    counted_loop(l.extent, l.stride_a * kF32, l.stride_b * kF32, l.stride_c * kF32,
                 l.stride_init * kF32, [&] { emit_loop(i + 1); });
  }

  // The iteration of each tile loop at tile element `e` (accumulator order,
  // the innermost tile loop fastest; the vector loop's is its chunk), by loop
  // index into `iteration`.
  void tile_iterations(int e, std::vector<int64_t>& iteration) const {
    for (auto it = tile_loops_.rbegin(); it != tile_loops_.rend(); ++it) {
      const int64_t n = *it == plan_.vector_loop ? chunks_ : plan_.loops[*it].extent;
      iteration[static_cast<size_t>(*it)] = e % n;
      e = static_cast<int>(e / n);
    }
  }
  std::vector<int64_t> tile_iterations(int e) const {
    std::vector<int64_t> iteration(plan_.loops.size(), 0);
    tile_iterations(e, iteration);
    return iteration;
  }

  // Byte displacement of tile element `e` along `stride`.
  int64_t tile_disp(int e, int64_t ContractionPlan::Loop::*stride) const {
    const std::vector<int64_t> iteration = tile_iterations(e);
    int64_t disp = 0;
    for (int l : tile_loops_) {
      const int64_t step = l == plan_.vector_loop ? plan_.vector_lanes : 1;
      disp += iteration[static_cast<size_t>(l)] * step * (plan_.loops[l].*stride) * kF32;
    }
    return disp;
  }
  // Which vector of the tile's row element `e` is (its vector-loop chunk).
  int64_t tile_chunk(int e) const {
    return tile_iterations(e)[static_cast<size_t>(plan_.vector_loop)];
  }
  // Whether tile element `e` is the masked last vector.
  bool tile_tail(int e) const { return plan_.vector_tail && tile_chunk(e) == chunks_ - 1; }

  Address mem(const Reg64& base, int64_t disp) const {
    return c_.ptr[base + static_cast<int32_t>(disp)];
  }

  void load_vector(int reg, const Address& src, bool tail) {
    if (avx512_) {
      if (tail)
        c_.vmovups(Zmm(reg) | c_.k1 | c_.T_z, src);
      else
        c_.vmovups(Zmm(reg), src);
    } else {
      if (tail)
        c_.vmaskmovps(Ymm(reg), Ymm(avx2_mask_), src);
      else
        c_.vmovups(Ymm(reg), src);
    }
  }
  void store_vector(const Address& dst, int reg, bool tail) {
    if (avx512_) {
      if (tail)
        c_.vmovups(dst | c_.k1, Zmm(reg));
      else
        c_.vmovups(dst, Zmm(reg));
    } else {
      if (tail)
        c_.vmaskmovps(dst, Ymm(avx2_mask_), Ymm(reg));
      else
        c_.vmovups(dst, Ymm(reg));
    }
  }
  void broadcast(int reg, const Address& src) {
    if (avx512_)
      c_.vbroadcastss(Zmm(reg), src);
    else
      c_.vbroadcastss(Ymm(reg), src);
  }
  // The second operand of an FMA at byte displacement d from p: broadcast,
  // or with both_vectors a vector load like the first operand's.
  void load_second(int reg, const Reg64& p, int64_t d, bool tail) {
    if (plan_.both_vectors)
      load_vector(reg, mem(p, d), tail);
    else
      broadcast(reg, mem(p, d));
  }
  // Whether AVX-512's embedded broadcast can read the second operand from memory.
  bool second_from_memory() const { return avx512_ && !plan_.both_vectors; }
  void zero(int reg) {
    if (avx512_)
      c_.vxorps(Zmm(reg), Zmm(reg), Zmm(reg));
    else
      c_.vxorps(Ymm(reg), Ymm(reg), Ymm(reg));
  }
  void fma(int acc, int x, int y) {
    if (avx512_)
      c_.vfmadd231ps(Zmm(acc), Zmm(x), Zmm(y));
    else
      c_.vfmadd231ps(Ymm(acc), Ymm(x), Ymm(y));
  }
  void fma_mem(int acc, int x, const Address& y) {
    if (avx512_)
      c_.vfmadd231ps(Zmm(acc), Zmm(x), y);
    else
      c_.vfmadd231ps(Ymm(acc), Ymm(x), y);
  }

  // The accumulators' starting values: the C tile, or the init's value.
  void start_tile() {
    const ContractionPlan::Init& init = plan_.init;
    for (int e = 0; e < plan_.accumulators; ++e) {
      const int acc = acc_[e];
      if (!init.present) {
        load_vector(acc, mem(pc_, tile_disp(e, &ContractionPlan::Loop::stride_c)), tile_tail(e));
      } else if (init.load) {
        const Address src = mem(pi_, tile_disp(e, &ContractionPlan::Loop::stride_init));
        if (plan_.loops[plan_.vector_loop].stride_init == 0)
          broadcast(acc, src);
        else
          load_vector(acc, src, tile_tail(e));
      } else if (std::bit_cast<uint32_t>(init.constant) == 0) {
        zero(acc);
      } else {
        std::vector<uint8_t> bytes(64);
        for (size_t i = 0; i < bytes.size(); i += 4) std::memcpy(&bytes[i], &init.constant, 4);
        if (avx512_)
          c_.vmovups(Zmm(acc), ctx_.constants().table(bytes, 64));
        else
          c_.vmovups(Ymm(acc), ctx_.constants().table(bytes, 32));
      }
    }
  }

  void emit_tile() {
    start_tile();
    emit_reduction(plan_.tile_scope, Step{0, 0, std::vector<int64_t>(plan_.loops.size(), 0)});
    for (int e = 0; e < plan_.accumulators; ++e)
      store_vector(mem(pc_, tile_disp(e, &ContractionPlan::Loop::stride_c)), acc_[e], tile_tail(e));
  }

  // `at` advanced by `it` iterations of loops[i].
  static Step advance(Step at, const ContractionPlan::Loop& l, size_t i, int64_t it) {
    at.da += it * l.stride_a * kF32;
    at.db += it * l.stride_b * kF32;
    at.iteration[i] = it;
    return at;
  }

  // Reduction loops from loops[i] inward; `at`: the unrolled reduction
  // iterations around this point.
  void emit_reduction(int i, const Step& at) {
    int n = static_cast<int>(plan_.loops.size());
    while (i < n && plan_.loops[i].stride_c != 0) ++i;
    if (i == n) {
      emit_step(at);
      return;
    }
    const auto& l = plan_.loops[i];
    if (l.role == Role::Unrolled) {
      // Every reduction loop from here in is unrolled: one straight run of
      // steps, whose FMAs may share vector operands across steps.
      std::vector<Step> steps;
      unrolled_steps(i, at, steps);
      emit_steps(steps);
      return;
    }
    counted_loop(l.extent / l.unroll, l.stride_a * kF32 * l.unroll, l.stride_b * kF32 * l.unroll, 0,
                 0, [&] {
                   for (int64_t u = 0; u < l.unroll; ++u)
                     emit_reduction(i + 1, advance(at, l, static_cast<size_t>(i), u));
                 });
  }

  // The reduction iterations from loops[i] inward, in program order (every
  // reduction loop there is Unrolled).
  void unrolled_steps(int i, const Step& at, std::vector<Step>& out) const {
    int n = static_cast<int>(plan_.loops.size());
    while (i < n && plan_.loops[i].stride_c != 0) ++i;
    if (i == n) {
      out.push_back(at);
      return;
    }
    const auto& l = plan_.loops[i];
    for (int64_t it = 0; it < l.extent; ++it)
      unrolled_steps(i + 1, advance(at, l, static_cast<size_t>(i), it), out);
  }

  // Whether every test of a guard holds at these iterations.
  static bool guard_holds(const std::vector<ContractionPlan::GuardTest>& guard,
                          const std::vector<int64_t>& iteration) {
    for (const auto& t : guard)
      if (!t.holds(iteration)) return false;
    return true;
  }

  // The FMAs of one reduction step, one per accumulator.
  std::vector<Fma> step_fmas(const Step& step) const {
    const bool a_bcast = plan_.a_is_broadcast;
    const int64_t dv = a_bcast ? step.db : step.da, ds = a_bcast ? step.da : step.db;
    auto vstride = a_bcast ? &ContractionPlan::Loop::stride_b : &ContractionPlan::Loop::stride_a;
    auto sstride = a_bcast ? &ContractionPlan::Loop::stride_a : &ContractionPlan::Loop::stride_b;
    const auto& vguard = a_bcast ? plan_.guard_b : plan_.guard_a;
    const auto& sguard = a_bcast ? plan_.guard_a : plan_.guard_b;
    std::vector<Fma> fmas;
    std::vector<int64_t> iteration = step.iteration;
    for (int e = 0; e < plan_.accumulators; ++e) {
      Fma f{e, dv + tile_disp(e, vstride), ds + tile_disp(e, sstride), tile_tail(e)};
      if (has_guard()) {
        tile_iterations(e, iteration);
        f.zero_v = !guard_holds(vguard, iteration);
        f.zero_s = !guard_holds(sguard, iteration);
      }
      fmas.push_back(f);
    }
    return fmas;
  }
  bool has_guard() const { return !plan_.guard_a.empty() || !plan_.guard_b.empty(); }

  // A run of unrolled steps. When their FMAs share vector operands across
  // steps (a convolution window slides over the rows the tile already
  // loads: row oh + r serves output rows oh..oh+2), they are emitted grouped
  // by vector operand, each loaded once, instead of step by step. Every
  // accumulator still receives its FMAs in program order (checked: its
  // operands' addresses must not decrease, so sorting by address keeps its
  // order), so results are bit-identical; FMAs into one accumulator are
  // spaced apart for the FMA latency.
  void emit_steps(const std::vector<Step>& steps) {
    auto step_by_step = [&] {
      for (const Step& step : steps) emit_step(step);
    };
    if (steps.size() < 2) return step_by_step();
    std::vector<Fma> all;
    size_t loads_by_step = 0;
    std::map<int64_t, bool> vectors;  // distinct vector operands of the run -> tail
    std::map<int64_t, int> scalars;   // distinct broadcast operands -> uses
    std::map<int64_t, bool> scalar_tail;
    bool any_zero = false;
    for (const Step& step : steps) {
      std::vector<Fma> fmas = step_fmas(step);
      std::map<int64_t, bool> own;
      for (const Fma& f : fmas) {
        any_zero = any_zero || f.zero_v || f.zero_s;
        own[f.vdisp] = f.tail;
        vectors[f.vdisp] = f.tail;
        ++scalars[f.sdisp];
        scalar_tail[f.sdisp] = f.tail;
      }
      loads_by_step += own.size();
      all.insert(all.end(), fmas.begin(), fmas.end());
    }
    // Worth it only when it saves a quarter of the vector loads.
    if (4 * vectors.size() > 3 * loads_by_step) return step_by_step();
    std::vector<int64_t> last(static_cast<size_t>(plan_.accumulators),
                              std::numeric_limits<int64_t>::min());
    for (const Fma& f : all) {
      if (f.vdisp < last[static_cast<size_t>(f.acc)]) return step_by_step();
      last[static_cast<size_t>(f.acc)] = f.vdisp;
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const Fma& x, const Fma& y) { return x.vdisp < y.vdisp; });
    if ((plan_.both_vectors || any_zero) && !max_combine()) return emit_cached(all);
    const std::vector<Fma> order = spaced(all);

    // Broadcast operands in registers when they fit beside a few vectors;
    // otherwise from memory (AVX-512's embedded broadcast) or a temporary.
    const int nfree = static_cast<int>(free_.size());
    const bool keep_scalars = !max_combine() && static_cast<int>(scalars.size()) + 3 <= nfree;
    std::map<int64_t, int> sreg;
    size_t next = 0;
    const Reg64& pv = plan_.a_is_broadcast ? pb_ : pa_;
    const Reg64& ps = plan_.a_is_broadcast ? pa_ : pb_;
    if (keep_scalars)
      for (const auto& [d, uses] : scalars) {
        sreg[d] = free_[next++];
        load_second(sreg[d], ps, d, scalar_tail[d]);
      }
    const int scalar_temp =
        !keep_scalars && !second_from_memory() && !max_combine() ? free_[next++] : -1;
    // Vector operands in the remaining registers, least recently used out.
    std::vector<int> pool(free_.begin() + static_cast<long>(next), free_.end());
    std::vector<int64_t> held(pool.size(), std::numeric_limits<int64_t>::min());
    std::vector<size_t> used_at(pool.size(), 0);
    size_t clock = 0;
    for (const Fma& f : order) {
      ++clock;
      size_t slot = pool.size();
      for (size_t k = 0; k < pool.size(); ++k)
        if (held[k] == f.vdisp) slot = k;
      if (slot == pool.size()) {
        slot =
            static_cast<size_t>(std::min_element(used_at.begin(), used_at.end()) - used_at.begin());
        held[slot] = f.vdisp;
        load_operand(pool[slot], pv, f.vdisp, f.tail);
      }
      used_at[slot] = clock;
      const int v = pool[slot];
      if (max_combine()) {
        vmax(acc_[f.acc], v);
      } else if (keep_scalars) {
        fma(acc_[f.acc], v, sreg[f.sdisp]);
      } else if (second_from_memory()) {
        c_.vfmadd231ps(Zmm(acc_[f.acc]), Zmm(v), c_.ptr_b[ps + static_cast<int32_t>(f.sdisp)]);
      } else {
        load_second(scalar_temp, ps, f.sdisp, f.tail);
        fma(acc_[f.acc], v, scalar_temp);
      }
    }
  }

  // An operand of a run of FMAs: the vector operand or the second one, by
  // byte displacement from its pointer (kZero: a guarded operand's zero).
  using Operand = std::pair<bool, int64_t>;  // (second, displacement)
  static constexpr int64_t kZero = std::numeric_limits<int64_t>::min();
  static Operand operand(const Fma& f, bool second) {
    if (second) return {true, f.zero_s ? kZero : f.sdisp};
    return {false, f.zero_v ? kZero : f.vdisp};
  }
  // Whether an FMA can read the operand from memory: a plain vector (not
  // masked, strided or zero), or on AVX-512 a broadcast.
  bool foldable(const Fma& f, bool second) const {
    if (second) return !f.zero_s && (plan_.both_vectors ? !f.tail : avx512_);
    return !f.zero_v && !f.tail && plan_.vector_stride == 1;
  }

  // One FMA of a run with its operands placed: a register, loaded first when
  // `load_*` is set, or -1 for the FMA's memory operand (at most one).
  struct PlacedFma {
    Fma f;
    int v = -1, s = -1;
    bool load_v = false, load_s = false;
  };

  // Operand registers for a run in the given order (both_vectors: each FMA
  // reads two whole vectors): every operand is kept in a register while it
  // has a later use, evicting the one whose next use is furthest away
  // (Belady's choice, optimal for a fixed order), or is read by the FMA from
  // memory when nothing held is needed later than it. Returns the loads.
  size_t place_operands(const std::vector<Fma>& order, std::vector<PlacedFma>& out) const {
    std::map<Operand, std::vector<size_t>> uses;
    for (size_t i = 0; i < order.size(); ++i) {
      uses[operand(order[i], false)].push_back(i);
      uses[operand(order[i], true)].push_back(i);
    }
    constexpr size_t kNever = std::numeric_limits<size_t>::max();
    auto next_use = [&](const Operand& k, size_t from) {  // first use at or after `from`
      const auto& u = uses.at(k);
      auto it = std::lower_bound(u.begin(), u.end(), from);
      return it == u.end() ? kNever : *it;
    };
    std::vector<std::optional<Operand>> held(free_.size());
    size_t loads = 0;
    out.clear();
    for (size_t i = 0; i < order.size(); ++i) {
      PlacedFma p{order[i]};
      int pinned = -1;
      bool folded = false;
      for (const bool second : {false, true}) {
        const Operand k = operand(p.f, second);
        int slot = -1;
        for (size_t r = 0; r < held.size(); ++r)
          if (held[r] == k) slot = static_cast<int>(r);
        if (slot < 0) {
          ++loads;
          const bool fold = !folded && foldable(p.f, second);
          const size_t nu = next_use(k, i + 1);
          size_t victim_use = 0;
          for (size_t r = 0; r < held.size(); ++r) {
            if (static_cast<int>(r) == pinned) continue;
            const size_t u = held[r] ? next_use(*held[r], i) : kNever;
            if (slot < 0 || u > victim_use) {
              slot = static_cast<int>(r);
              victim_use = u;
            }
          }
          if (fold && (nu == kNever || victim_use < nu)) {
            folded = true;
            continue;  // from memory
          }
          held[static_cast<size_t>(slot)] = k;
          (second ? p.load_s : p.load_v) = true;
        }
        (second ? p.s : p.v) = slot;
        pinned = slot;
      }
      out.push_back(p);
    }
    return loads;
  }

  // A run of FMAs with operands cached in registers, in the order, of those
  // tried, that loads the fewest vectors: as given (by vector operand), or
  // by the accumulator's vector chunk and then as given (one channel
  // block's weights stay in registers while its inputs stream past). For
  // both_vectors runs (a depthwise convolution's window: every weight
  // vector serves a whole row of outputs, every input vector up to kw of
  // them) and runs with guarded operands (a border of an inlined pad: the
  // zero vector is one more operand). Each accumulator keeps its FMAs' order.
  void emit_cached(std::vector<Fma> sorted) {
    std::vector<PlacedFma> best, placed;
    size_t best_loads = std::numeric_limits<size_t>::max();
    for (const bool by_chunk : {false, true}) {
      if (by_chunk)
        std::stable_sort(sorted.begin(), sorted.end(), [&](const Fma& x, const Fma& y) {
          return tile_chunk(x.acc) < tile_chunk(y.acc);
        });
      const size_t loads = place_operands(spaced(sorted), placed);
      if (loads < best_loads) {
        best_loads = loads;
        best.swap(placed);
      }
    }
    const Reg64& pv = plan_.a_is_broadcast ? pb_ : pa_;
    const Reg64& ps = plan_.a_is_broadcast ? pa_ : pb_;
    for (const PlacedFma& p : best) {
      const int acc = acc_[p.f.acc];
      if (p.load_v) {
        if (p.f.zero_v)
          zero(free_[p.v]);
        else
          load_operand(free_[p.v], pv, p.f.vdisp, p.f.tail);
      }
      if (p.load_s) {
        if (p.f.zero_s)
          zero(free_[p.s]);
        else
          load_second(free_[p.s], ps, p.f.sdisp, p.f.tail);
      }
      if (p.v >= 0 && p.s >= 0)
        fma(acc, free_[p.v], free_[p.s]);
      else if (p.v < 0)
        fma_mem(acc, free_[p.s], mem(pv, p.f.vdisp));  // products commute exactly
      else if (plan_.both_vectors)
        fma_mem(acc, free_[p.v], mem(ps, p.f.sdisp));
      else
        c_.vfmadd231ps(Zmm(acc), Zmm(free_[p.v]), c_.ptr_b[ps + static_cast<int32_t>(p.f.sdisp)]);
    }
  }

  // `sorted` reordered so that two FMAs into one accumulator are at least a
  // few FMAs apart (the FMA latency times the FMAs issued per cycle), looking
  // a bounded way ahead; each accumulator keeps its FMAs' order.
  std::vector<Fma> spaced(const std::vector<Fma>& sorted) const {
    const size_t gap = avx512_ ? 4 : 8, window = 32;
    std::vector<Fma> out;
    std::vector<bool> done(sorted.size(), false);
    std::vector<size_t> last(static_cast<size_t>(plan_.accumulators), 0);  // out index + 1
    size_t first = 0;
    while (out.size() < sorted.size()) {
      while (done[first]) ++first;
      size_t pick = first;
      std::vector<bool> blocked(static_cast<size_t>(plan_.accumulators), false);
      for (size_t k = first; k < sorted.size() && k < first + window; ++k) {
        if (done[k]) continue;
        const size_t acc = static_cast<size_t>(sorted[k].acc);
        if (blocked[acc]) continue;  // an earlier FMA of this accumulator is still waiting
        blocked[acc] = true;
        if (last[acc] == 0 || out.size() + 1 - last[acc] > gap) {
          pick = k;
          break;
        }
      }
      done[pick] = true;
      out.push_back(sorted[pick]);
      last[static_cast<size_t>(sorted[pick].acc)] = out.size();
    }
    return out;
  }

  int rotate(const std::vector<int>& pool) { return pool[rot_++ % pool.size()]; }

  // acc = max(acc, v): the accumulator first (see ContractionPlan::Combine).
  void vmax(int acc, int v) {
    if (avx512_)
      c_.vmaxps(Zmm(acc), Zmm(acc), Zmm(v));
    else
      c_.vmaxps(Ymm(acc), Ymm(acc), Ymm(v));
  }
  bool max_combine() const { return plan_.combine == ContractionPlan::Combine::Max; }

  // One step of a max reduction: each distinct vector operand loaded once
  // into a rotating register and folded into the accumulators that use it.
  void emit_max_step(const Step& step) {
    std::vector<Fma> fmas = step_fmas(step);
    std::map<int64_t, bool> vs;
    for (const Fma& f : fmas) vs[f.vdisp] = f.tail;
    for (const auto& [d, tail] : vs) {
      const int r = rotate(free_);
      load_operand(r, pa_, d, tail);
      for (const Fma& f : fmas)
        if (f.vdisp == d) vmax(acc_[f.acc], r);
    }
  }

  // All FMAs of one reduction iteration.
  void emit_step(const Step& step) {
    if (max_combine()) return emit_max_step(step);
    const Reg64& pv = plan_.a_is_broadcast ? pb_ : pa_;
    const Reg64& ps = plan_.a_is_broadcast ? pa_ : pb_;
    const std::vector<Fma> fmas = step_fmas(step);
    for (const Fma& f : fmas)
      if (f.zero_v || f.zero_s || plan_.both_vectors) return emit_cached(fmas);
    std::map<int64_t, bool> vs;  // distinct vector operands -> tail
    std::map<int64_t, int> ss;   // distinct broadcast operands -> uses
    std::map<int64_t, bool> st;  // distinct broadcast operands -> tail (both_vectors)
    for (const Fma& f : fmas) {
      vs[f.vdisp] = f.tail;
      ++ss[f.sdisp];
      st[f.sdisp] = f.tail;
    }
    int nfree = static_cast<int>(free_.size());
    int nv = static_cast<int>(vs.size()), ns = static_cast<int>(ss.size());
    if (nv + 1 <= nfree && nv <= ns) {
      // Every vector operand in a register; broadcasts rotate through the rest.
      std::map<int64_t, int> vreg;
      int k = 0;
      for (auto& [d, tail] : vs) {
        vreg[d] = free_[k++];
        load_operand(vreg[d], pv, d, tail);
      }
      std::vector<int> pool(free_.begin() + k, free_.end());
      for (auto& [d, uses] : ss) {
        if (second_from_memory() && uses == 1) {
          for (const auto& f : fmas)
            if (f.sdisp == d)
              c_.vfmadd231ps(Zmm(acc_[f.acc]), Zmm(vreg[f.vdisp]),
                             c_.ptr_b[ps + static_cast<int32_t>(d)]);
          continue;
        }
        int r = rotate(pool);
        load_second(r, ps, d, st[d]);
        for (const auto& f : fmas)
          if (f.sdisp == d) fma(acc_[f.acc], vreg[f.vdisp], r);
      }
    } else if (ns + 1 <= nfree) {
      // Every broadcast in a register; vector operands from memory or rotating.
      std::map<int64_t, int> sreg;
      int k = 0;
      for (auto& [d, uses] : ss) {
        sreg[d] = free_[k++];
        load_second(sreg[d], ps, d, st[d]);
      }
      std::vector<int> pool(free_.begin() + k, free_.end());
      for (auto& [d, tail] : vs) {
        int uses = 0;
        for (const auto& f : fmas) uses += f.vdisp == d;
        if (!tail && uses == 1 && plan_.vector_stride == 1) {
          for (const auto& f : fmas)
            if (f.vdisp == d) fma_mem(acc_[f.acc], sreg[f.sdisp], mem(pv, d));
          continue;
        }
        int r = rotate(pool);
        load_operand(r, pv, d, tail);
        for (const auto& f : fmas)
          if (f.vdisp == d) fma(acc_[f.acc], r, sreg[f.sdisp]);
      }
    } else {
      // Group by vector operand; broadcasts from memory (AVX-512) or rotating.
      int half = nfree / 2;
      std::vector<int> vpool(free_.begin(), free_.begin() + half);
      std::vector<int> spool(free_.begin() + half, free_.end());
      for (auto& [d, tail] : vs) {
        int r = vpool[rot_++ % vpool.size()];
        load_operand(r, pv, d, tail);
        for (const auto& f : fmas) {
          if (f.vdisp != d) continue;
          if (second_from_memory()) {
            c_.vfmadd231ps(Zmm(acc_[f.acc]), Zmm(r), c_.ptr_b[ps + static_cast<int32_t>(f.sdisp)]);
          } else {
            int s = spool[srot_++ % spool.size()];
            load_second(s, ps, f.sdisp, f.tail);
            fma(acc_[f.acc], r, s);
          }
        }
      }
    }
  }

  EmitContext& ctx_;
  CodeGenerator& c_;
  const ContractionPlan& plan_;
  bool avx512_;
  Reg64 pa_, pb_, pc_, tmp_;
  Reg64 pi_;  // the init value's pointer (Init::load)
  std::vector<Reg64> counters_;
  int next_counter_ = 0;
  int stack_counters_ = 0, used_stack_ = 0;
  std::vector<int> acc_, free_;
  int avx2_mask_ = -1;
  int perm_index_ = -1, half_ = -1, low_mask_ = -1, high_mask_ = -1;  // stride-2 operand
  std::vector<int> tile_loops_;
  int64_t chunks_ = 1;
  size_t rot_ = 0, srot_ = 0;
};

// Largest byte displacement any access of the tile can need from its pointer.
bool displacements_fit(const ContractionPlan& plan) {
  int64_t a = 0, b = 0, c = 0;
  for (size_t i = plan.tile_scope; i < plan.loops.size(); ++i) {
    const auto& l = plan.loops[i];
    a += std::abs(l.stride_a) * l.extent * kF32;
    b += std::abs(l.stride_b) * l.extent * kF32;
    c += std::abs(l.stride_c) * l.extent * kF32;
  }
  int64_t slack = int64_t{plan.vector_lanes} * plan.vector_stride * kF32;
  return fits_i32(a + slack) && fits_i32(b + slack) && fits_i32(c + slack);
}

}  // namespace

bool try_emit_contraction(EmitContext& ctx, const ForNode& root, std::string* why_not) {
  const Target& target = ctx.target();
  std::vector<Reg64> gprs = ctx.scratch_gprs();
  std::vector<int> vregs = ctx.scratch_vector_registers();
  auto refuse = [&](std::string reason) {
    if (why_not) *why_not = std::move(reason);
    return false;
  };
  if (gprs.size() < 5 || vregs.size() < 6) return refuse("too few free registers here");
  // Outer variables known here (a border part's row) become constants, so
  // that guards on them resolve per product.
  const VarMap known = ctx.known_constants();
  Stmt with_known;
  if (!known.empty())
    with_known = with_header(root, root.loop_var, substitute(root.min, known),
                             substitute(root.extent, known), substitute(root.body, known));
  const ForNode& nest = with_known ? *with_known.as<ForNode>() : root;
  PlanLimits limits;
  int missing = target.vector_registers() - static_cast<int>(vregs.size());
  limits.reserved_vector_registers += std::max(0, missing);
  std::string why;
  auto plan = plan_contraction(nest, target, limits, &why);
  int extra = 0;
  if (plan) {
    // Registers the emitter keeps beside the operands: the AVX2 tail mask,
    // and for a stride-2 operand the permute index or the masks of its tail.
    if (target.isa == Isa::avx2 && plan->vector_tail) ++extra;
    if (plan->vector_stride != 1)
      extra +=
          target.isa == Isa::avx512 ? (plan->vector_tail ? 2 : 1) : (plan->vector_tail ? 3 : 0);
    if (extra) {
      limits.reserved_vector_registers += extra;
      plan = plan_contraction(nest, target, limits, &why);
    }
  }
  if (!plan) return refuse(why);
  // Operands cached in registers (both_vectors, guards) need two beside the tile.
  if ((plan->both_vectors || !plan->guard_a.empty() || !plan->guard_b.empty()) &&
      static_cast<int>(vregs.size()) - plan->accumulators - extra < 2)
    return refuse("too few vector registers beside the tile for its operands");
  if (!displacements_fit(*plan)) return refuse("an operand displacement does not fit in 32 bits");
  ContractionEmitter(ctx, *plan, std::move(gprs), std::move(vregs)).emit();
  return true;
}

}  // namespace tirc
