#include <functional>

#include "ir/eval/interpreter.h"

namespace tirc {

namespace {

std::string index_str(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}


void check_signatures(const PrimFunc& a, const PrimFunc& b) {
  if (a->params.size() != b->params.size())
    throw Error("check_equivalent: the functions take " + std::to_string(a->params.size()) +
                " and " + std::to_string(b->params.size()) + " parameters");
  for (size_t i = 0; i < a->params.size(); ++i) {
    const Param& pa = a->params[i];
    const Param& pb = b->params[i];
    const std::string which = "parameter " + std::to_string(i) + " (" +
                              (pa.buffer ? pa.buffer->name
                               : pa.var  ? pa.var->name
                                         : "?") +
                              ")";
    if (!pa.buffer != !pb.buffer)
      throw Error("check_equivalent: " + which +
                  " is a buffer in one function and a scalar in the other");
    if (!pa.buffer) {
      if (pa.var->dtype != pb.var->dtype)
        throw Error("check_equivalent: " + which + " has types " + pa.var->dtype.str() + " and " +
                    pb.var->dtype.str());
      continue;
    }
    if (pa.buffer->dtype != pb.buffer->dtype)
      throw Error("check_equivalent: " + which + " has element types " + pa.buffer->dtype.str() +
                  " and " + pb.buffer->dtype.str());
    bool same_shape = pa.buffer->shape.size() == pb.buffer->shape.size();
    for (size_t d = 0; same_shape && d < pa.buffer->shape.size(); ++d) {
      auto x = as_const_int(pa.buffer->shape[d]), y = as_const_int(pb.buffer->shape[d]);
      same_shape = x && y && *x == *y;
    }
    if (!same_shape)
      throw Error("check_equivalent: " + which + " has different (or non-constant) shapes");
  }
}

using Runner = std::function<void(const std::vector<Argument>&, const RunOptions&)>;

// Runs one program of a trial; a race it finds is returned as the message
// (empty when none), other errors are thrown.
std::string run_one(const Runner& run, const std::vector<Argument>& args, RunOptions options,
                    uint64_t trial_seed) {
  std::string race;
  options.shuffle_seed = trial_seed;
  options.race = &race;
  try {
    run(args, options);
  } catch (const Error& e) {
    if (race.empty()) throw;
    // The error's own message (a race inside a called kernel names the call)
    // and where the loop is: EquivResult has no location of its own.
    const SourceLoc& at = e.loc();
    if (!at.known()) return e.message();
    return e.message() + " at " + (at.file ? *at.file : std::string("<input>")) + ":" +
           std::to_string(at.line) + ":" + std::to_string(at.col);
  }
  return "";
}

EquivResult compare_runs(const PrimFunc& a, const Runner& run_a, const Runner& run_b,
                         const EquivOptions& o) {
  for (int t = 0; t < o.trials; ++t) {
    const uint64_t trial_seed = o.seed + static_cast<uint64_t>(t);
    std::vector<NDArray> xa = random_inputs(a, trial_seed, o.small_ints);
    std::vector<NDArray> xb = xa;
    // Scalar parameters get one small positive value per trial.
    std::vector<Argument> args_a, args_b;
    size_t k = 0;
    for (const Param& p : a->params) {
      Argument arg_a, arg_b;
      if (p.buffer) {
        arg_a.array = &xa[k];
        arg_b.array = &xb[k];
        ++k;
      } else {
        arg_a.int_value = arg_b.int_value = 1 + static_cast<int64_t>(trial_seed % 4);
        arg_a.float_value = arg_b.float_value = static_cast<double>(arg_a.int_value);
      }
      args_a.push_back(arg_a);
      args_b.push_back(arg_b);
    }
    const std::string trial =
        " (trial " + std::to_string(t) + ", seed " + std::to_string(trial_seed) + ")";
    if (std::string race = run_one(run_a, args_a, o.run_a, trial_seed); !race.empty())
      return {false, "first program: " + race + trial};
    if (std::string race = run_one(run_b, args_b, o.run_b, trial_seed); !race.empty())
      return {false, race + trial};
    k = 0;
    for (const Param& p : a->params) {
      if (!p.buffer) continue;
      const NDArray& x = xa[k];
      const NDArray& y = xb[k];
      ++k;
      if (int64_t i = x.first_mismatch(y, o.rtol, o.atol); i >= 0)
        return {false, "buffer " + p.buffer->name + index_str(x.shape(), i) +
                           " differs: " + element_text(x, i) + " vs " + element_text(y, i) + trial};
    }
  }
  return {};
}

}  // namespace

EquivResult check_equivalent(const PrimFunc& a, const PrimFunc& b, const EquivOptions& options) {
  check_signatures(a, b);
  const CompiledFunc ca(a), cb(b);
  return compare_runs(
      a, [&](const std::vector<Argument>& x, const RunOptions& r) { ca.run(x, r); },
      [&](const std::vector<Argument>& x, const RunOptions& r) { cb.run(x, r); }, options);
}

EquivResult check_equivalent(const IRModule& ma, std::string_view a, const IRModule& mb,
                             std::string_view b, const EquivOptions& options) {
  const PrimFunc& fa = ma.at(a);
  check_signatures(fa, mb.at(b));
  const CompiledModule ca(ma), cb(mb);
  return compare_runs(
      fa, [&](const std::vector<Argument>& x, const RunOptions& r) { ca.run(a, x, r); },
      [&](const std::vector<Argument>& x, const RunOptions& r) { cb.run(b, x, r); }, options);
}

EquivResult check_equivalent(const PrimFunc& a, const PrimFunc& b, int trials, uint64_t seed,
                             bool small_ints, double rtol, double atol) {
  EquivOptions o;
  o.trials = trials;
  o.seed = seed;
  o.small_ints = small_ints;
  o.rtol = rtol;
  o.atol = atol;
  return check_equivalent(a, b, o);
}

EquivResult check_equivalent(const IRModule& ma, std::string_view a, const IRModule& mb,
                             std::string_view b, int trials, uint64_t seed, bool small_ints,
                             double rtol, double atol) {
  EquivOptions o;
  o.trials = trials;
  o.seed = seed;
  o.small_ints = small_ints;
  o.rtol = rtol;
  o.atol = atol;
  return check_equivalent(ma, a, mb, b, o);
}

}  // namespace tirc
