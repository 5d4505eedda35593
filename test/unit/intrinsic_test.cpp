// The intrinsic registry (ir/intrinsic.h) against the consumers that read it:
// names and aliases, the parser's arity and result types, and the
// interpreter, whose results must be the registry's own functions.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "eval_test_util.h"
#include "ir/intrinsic.h"
#include "ir/text/parser.h"

using namespace tirc;
using namespace tirc::test;

namespace {

const DataType f64 = DataType::float64();

std::string name_of(const Intrinsic& in) {
  return std::string(in.name);
}

// A call of `in` on `n` float64 immediates x, x + 0.5, ...
Expr float_call(const Intrinsic& in, DataType result, size_t n, double x) {
  std::vector<Expr> args;
  for (size_t i = 0; i < n; ++i) args.push_back(make_float(x + 0.5 * static_cast<double>(i), f64));
  return make_call(result, name_of(in), std::move(args));
}

Expr int_call(const Intrinsic& in, size_t n) {
  std::vector<Expr> args;
  for (size_t i = 0; i < n; ++i) args.push_back(make_int(static_cast<int64_t>(6 + i), i32));
  return make_call(i32, name_of(in), std::move(args));
}

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

}  // namespace

TEST_CASE("intrinsic names are unique and aliases share an id", "[intrinsic]") {
  std::set<std::string_view> names;
  for (const Intrinsic& in : intrinsics()) {
    CAPTURE(in.name);
    CHECK(names.insert(in.name).second);
    CHECK(find_intrinsic(in.name) == &in);
    CHECK_FALSE(in.name.starts_with("T."));
    CHECK_FALSE(in.name.starts_with("tir."));
  }
  CHECK(find_intrinsic("fabs")->id == IntrinsicId::Abs);
  CHECK(find_intrinsic("abs")->id == IntrinsicId::Abs);
  CHECK(find_intrinsic("round")->id == IntrinsicId::Round);
  CHECK(find_intrinsic("nearbyint")->id == IntrinsicId::Round);
  // Aliases differ only where the types they take differ.
  CHECK(find_intrinsic("abs")->rule == DtypeRule::Numeric);
  CHECK(find_intrinsic("fabs")->rule == DtypeRule::FloatMath);

  for (const char* unknown : {"frobnicate", "", "T.exp", "tir.exp", "Exp", "Select", "min"})
    CHECK(find_intrinsic(unknown) == nullptr);
  // A call finds its entry through the namespace it may be spelled with.
  for (const char* spelled : {"exp", "T.exp", "tir.exp"})
    CHECK(find_intrinsic(*make_call(f32, spelled, {make_float(1.0)}).as<CallNode>()) ==
          find_intrinsic("exp"));
  const Expr frob = make_call(f32, "frobnicate", {make_float(1.0)});
  CHECK(find_intrinsic(*frob.as<CallNode>()) == nullptr);
  const Expr sin = make_call(f32, "sin", {make_float(1.0)});
  CHECK(find_intrinsic(*sin.as<CallNode>(), Backend::C) == find_intrinsic("sin"));
  CHECK(find_intrinsic(*sin.as<CallNode>(), Backend::X86Scalar) == nullptr);
}

TEST_CASE("each intrinsic's fields agree with its dtype rule", "[intrinsic]") {
  for (const Intrinsic& in : intrinsics()) {
    CAPTURE(in.name);
    CHECK((in.arity >= 1 || (in.arity == kVariadicArity && in.id == IntrinsicId::CallKernel)));
    if (in.unary || in.binary) {
      CHECK((in.rule == DtypeRule::FloatMath || in.rule == DtypeRule::Numeric));
      CHECK(in.arity == (in.unary ? 1 : 2));
      CHECK_FALSE((in.unary && in.binary));
    }
    if (in.predicate) CHECK((in.rule == DtypeRule::FloatPredicate && in.arity == 1));
    if (in.rule == DtypeRule::FloatPredicate) CHECK(in.predicate);
    // The C generator spells every float function and predicate it takes,
    // and nothing else.
    const bool by_function = in.unary || in.binary || in.predicate;
    CHECK((in.c_function != nullptr) == by_function);
    if (by_function) CHECK(in.supports(Backend::Interpreter) == in.supports(Backend::C));
    // The x86 generators take the same intrinsics, all of them float math
    // (abs also on integers) or if_then_else.
    CHECK(in.supports(Backend::X86Scalar) == in.supports(Backend::X86Vector));
    if (in.supports(Backend::X86Scalar))
      CHECK((in.rule == DtypeRule::FloatMath || in.rule == DtypeRule::Numeric ||
             in.id == IntrinsicId::IfThenElse));
    if (in.rule == DtypeRule::Structural) CHECK(in.backends == 0);
  }
}

TEST_CASE("the interpreter evaluates each intrinsic with the registry's function", "[intrinsic]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const Intrinsic& in : intrinsics()) {
    CAPTURE(in.name);
    if (in.rule == DtypeRule::Structural) continue;
    const size_t arity = static_cast<size_t>(in.arity);
    const std::string wrong_arity =
        "expects " + std::to_string(arity) + " arguments, got " + std::to_string(arity + 1);
    if (!in.supports(Backend::Interpreter)) {
      // What the interpreter does not take, it reports as unknown.
      Expr call = in.rule == DtypeRule::IntegerBits ? int_call(in, arity)
                  : in.rule == DtypeRule::Condition
                      ? make_call(DataType::boolean(), name_of(in), {make_bool(true)})
                      : float_call(in, f64, arity, 1.0);
      CHECK_THROWS_WITH(eval_expr(call), Catch::Contains("unknown intrinsic " + name_of(in)));
      continue;
    }
    if (in.unary || in.binary) {
      for (double x : {0.3, 1.7, 2.5, -0.5, -2.5, 0.0, inf, nan}) {
        CAPTURE(x);
        const double want = in.unary ? in.unary(x) : in.binary(x, x + 0.5);
        CHECK(same(eval_float(float_call(in, f64, arity, x)), want));
        // float32 rounds the double result once.
        const double got32 = eval_float(float_call(in, f32, arity, x));
        CHECK(same(got32, static_cast<float>(want)));
      }
      CHECK_THROWS_WITH(eval_expr(float_call(in, f64, arity + 1, 1.0)),
                        Catch::Contains(wrong_arity));
    }
    if (in.predicate) {
      for (double x : {1.0, -0.0, inf, -inf, nan}) {
        CAPTURE(x);
        const Expr call = make_call(DataType::boolean(), name_of(in), {make_float(x, f64)});
        CHECK(eval_int(call) == (in.predicate(x) ? 1 : 0));
      }
      CHECK_THROWS_WITH(eval_expr(float_call(in, DataType::boolean(), 2, 1.0)),
                        Catch::Contains(wrong_arity));
    }
    if (in.on_integers()) {
      CHECK_NOTHROW(eval_int(int_call(in, arity)));
      CHECK_THROWS_WITH(eval_expr(int_call(in, arity + 1)), Catch::Contains(wrong_arity));
    }
    if (in.rule == DtypeRule::FloatMath)  // not on integers
      CHECK_THROWS_WITH(eval_expr(int_call(in, arity)), Catch::Contains("unknown intrinsic"));
    if (in.rule == DtypeRule::Choice) {
      CHECK(eval_int(make_call(i32, name_of(in), {make_bool(false), make_int(1), make_int(2)})) ==
            2);
      CHECK(eval_float(make_call(f32, name_of(in),
                                 {make_bool(true), make_float(1.5), make_float(2.5)})) == 1.5);
    }
  }
  // Integer operations by id.
  CHECK(eval_int(make_call(i32, "abs", {make_int(-7)})) == 7);
  CHECK(eval_int(make_call(i32, "bitwise_and", {make_int(6), make_int(3)})) == 2);
  CHECK(eval_int(make_call(i32, "bitwise_or", {make_int(6), make_int(3)})) == 7);
  CHECK(eval_int(make_call(i32, "bitwise_xor", {make_int(6), make_int(3)})) == 5);
  CHECK(eval_int(make_call(i32, "bitwise_not", {make_int(6)})) == -7);
  CHECK(eval_int(make_call(i32, "shift_left", {make_int(3), make_int(2)})) == 12);
  CHECK(eval_int(make_call(i32, "shift_right", {make_int(-8), make_int(1)})) == -4);
}

TEST_CASE("the parser accepts exactly the registry's intrinsics with their arity", "[intrinsic]") {
  Var x = make_var("x", f32), y = make_var("y", f32), c = make_var("c", DataType::boolean());
  Var n = make_var("n", i32);
  const std::vector<Var> scope{x, y, c, n};
  for (const Intrinsic& in : intrinsics()) {
    CAPTURE(in.name);
    if (in.rule == DtypeRule::Structural) continue;  // their own syntax: model_ir_test
    const std::string t = "T." + name_of(in);
    std::vector<std::string> args;
    switch (in.rule) {
      case DtypeRule::Choice:
        args = {"c", "x", "y"};
        break;
      case DtypeRule::Condition:
        args = {"c"};
        break;
      case DtypeRule::IntegerBits:
        args = std::vector<std::string>(static_cast<size_t>(in.arity), "n");
        break;
      default:
        args = std::vector<std::string>(static_cast<size_t>(in.arity), "x");
        break;
    }
    std::string text = t + "(";
    for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i];
    Expr e = parse_expr(text + ")", scope);
    auto* call = e.as<CallNode>();
    REQUIRE(call);
    CHECK(call->op == in.name);
    CHECK(call->args.size() == args.size());
    const DataType want = in.rule == DtypeRule::FloatPredicate ? DataType::boolean()
                          : in.rule == DtypeRule::Condition    ? DataType::boolean()
                          : in.rule == DtypeRule::IntegerBits  ? i32
                          : in.rule == DtypeRule::WarpMatrix   ? i32  // statements
                                                               : f32;
    CHECK(call->dtype == want);
    CHECK_THROWS_WITH(parse_expr(text + ", " + args[0] + ")", scope),
                      Catch::Contains(t + " takes " + std::to_string(in.arity) + " argument"));
  }
  CHECK_THROWS_WITH(parse_expr("T.frobnicate(x)", scope),
                    Catch::Contains("unknown function T.frobnicate in an expression"));
}
