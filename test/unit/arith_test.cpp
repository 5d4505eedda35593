#include <catch2/catch.hpp>

#include <random>

#include "arith_test_util.h"
#include "env_int.h"
#include "ir/arith/analyzer.h"
#include "ir/buffer.h"
#include "ir/structural.h"

using namespace tirc;
using tirc::test::str;

namespace {

Expr S(const Expr& e) {
  return simplify(e);
}

}  // namespace

TEST_CASE("constant folding of integer arithmetic", "[arith]") {
  CHECK(str(S(Expr(3) + 4)) == "7");
  CHECK(str(S(Expr(3) - 10)) == "-7");
  CHECK(str(S(Expr(6) * 7)) == "42");
  CHECK(str(S(floordiv(Expr(-7), Expr(2)))) == "-4");
  CHECK(str(S(floormod(Expr(-7), Expr(2)))) == "1");
  CHECK(str(S(floordiv(Expr(7), Expr(-2)))) == "-4");
  CHECK(str(S(floormod(Expr(7), Expr(-2)))) == "-1");
  CHECK(str(S(truncdiv(Expr(-7), Expr(2)))) == "-3");
  CHECK(str(S(truncmod(Expr(-7), Expr(2)))) == "-1");
  CHECK(str(S(min(Expr(3), Expr(-2)))) == "-2");
  CHECK(str(S(max(Expr(3), Expr(-2)))) == "3");
  // int32 wraps
  CHECK(str(S(Expr(2147483647) + 1)) == "-2147483648");
  CHECK(str(S(make_int(100, DataType::int8()) + make_int(100, DataType::int8()))) == "int8(-56)");
  CHECK(str(S(make_int(200, DataType::uint8()) + make_int(100, DataType::uint8()))) == "uint8(44)");
  CHECK(str(S(make_int(0, DataType::uint8()) - make_int(1, DataType::uint8()))) == "uint8(255)");
  // division by zero is left alone, never thrown
  Expr dz = floordiv(Expr(1), Expr(0));
  CHECK(S(dz).kind() == ExprKind::FloorDiv);
}

TEST_CASE("constant folding of comparisons, logic, select and casts", "[arith]") {
  CHECK(str(S(Expr(3) < 4)) == "True");
  CHECK(str(S(Expr(3) >= 4)) == "False");
  CHECK(str(S(Expr(3) == 3)) == "True");
  CHECK(str(S(logical_and(make_bool(true), make_bool(false)))) == "False");
  CHECK(str(S(logical_or(make_bool(false), make_bool(true)))) == "True");
  CHECK(str(S(make_not(make_bool(false)))) == "True");
  Var x = make_var("x");
  CHECK(str(S(make_select(Expr(1) < 2, x, Expr(5)))) == "x");
  CHECK(str(S(make_select(Expr(1) > 2, x, Expr(5)))) == "5");
  CHECK(str(S(make_cast(DataType::int64(), Expr(5)))) == "int64(5)");
  CHECK(str(S(make_cast(DataType::int8(), Expr(300)))) == "int8(44)");
  CHECK(str(S(make_cast(DataType::float32(), Expr(3)))) == "float32(3.000000)");
  CHECK(str(S(make_cast(DataType::int32(), make_float(-2.7)))) == "-2");
  CHECK(str(S(make_cast(DataType::boolean(), Expr(7)))) == "True");
  // float-to-int out of range is undefined in C: not folded
  CHECK(S(make_cast(DataType::int32(), make_float(1e20))).kind() == ExprKind::Cast);
  // logic identities
  Expr c = Expr(x) < 5;
  CHECK(str(S(logical_and(make_bool(true), c))) == "x < 5");
  CHECK(str(S(logical_or(c, make_bool(true)))) == "True");
  CHECK(str(S(make_not(make_not(c)))) == "x < 5");
  CHECK(str(S(make_not(c))) == "x >= 5");
}

TEST_CASE("floats fold in their own precision", "[arith]") {
  Expr third = S(make_float(1.0) / make_float(3.0));
  REQUIRE(third.as<FloatImmNode>());
  CHECK(third.as<FloatImmNode>()->value == static_cast<double>(1.0f / 3.0f));
  Expr third64 = S(make_float(1.0, DataType::float64()) / make_float(3.0, DataType::float64()));
  CHECK(third64.as<FloatImmNode>()->value == 1.0 / 3.0);
  Expr big = S(make_float(256.0, DataType::bfloat16()) + make_float(1.0, DataType::bfloat16()));
  CHECK(big.as<FloatImmNode>()->value == 256.0);  // bfloat16 has 8 significant bits
  CHECK(str(S(make_float(1.5) < make_float(2.5))) == "True");
  // no algebra on floats: x + 0.0 is not x (x = -0.0)
  Var f = make_var("f", DataType::float32());
  CHECK(S(f + make_float(0.0)).kind() == ExprKind::Add);
  CHECK(S(f + make_float(0.0)).dtype() == DataType::float32());
}

TEST_CASE("linear forms merge like terms in order of appearance", "[arith]") {
  Var i = make_var("i"), j = make_var("j"), k = make_var("k");
  CHECK(str(S(i * 4 + j + i * 2 - j)) == "i * 6");
  CHECK(str(S(i * 4 + j - 3)) == "i * 4 + j - 3");
  CHECK(str(S(i * 1 + 0)) == "i");
  CHECK(str(S(i - i)) == "0");
  CHECK(str(S(j + i - j * 2)) == "i - j");
  CHECK(str(S(Expr(0) - i)) == "i * (-1)");
  CHECK(str(S(Expr(5) - i)) == "5 - i");
  CHECK(str(S((i + 2) * 3 + k)) == "i * 3 + k + 6");
  CHECK(str(S((i + j) * (k - k + 2))) == "i * 2 + j * 2");
  CHECK(str(S(i * j + j * i)) == "i * j + j * i");
  CHECK(str(S(i * j + i * j)) == "i * j * 2");
  CHECK(str(S(i - 2 * (j - 1))) == "i - j * 2 + 2");
  Var l = make_var("l", DataType::int64());
  Expr e = S(l * 2 + 3 - l);
  CHECK(e.dtype() == DataType::int64());
  CHECK(str(e) == "l + int64(3)");
}

TEST_CASE("floordiv and floormod by constants", "[arith]") {
  Analyzer an;
  Var i = make_var("i"), j = make_var("j"), x = make_var("x");
  an.bind(i, Range::from_min_extent(0, 4));
  an.bind(j, Range::from_min_extent(0, 32));
  CHECK(str(an.simplify(floordiv(i * 32 + j, 32))) == "i");
  CHECK(str(an.simplify(floormod(i * 32 + j, 32))) == "j");
  CHECK(str(an.simplify(floordiv(i * 32 + j + 64, 32))) == "i + 2");
  CHECK(str(an.simplify(floormod(i * 32 + j + 64, 32))) == "j");
  CHECK(str(an.simplify(floordiv(j, 32))) == "0");
  CHECK(str(an.simplify(floordiv(j + 32, 32))) == "1");
  CHECK(str(an.simplify(floormod(j + 32, 32))) == "j");
  CHECK(str(an.simplify(floordiv(i * 32 + j, 128))) == "0");
  CHECK(str(S(floordiv(x * 8, 4))) == "x * 2");
  CHECK(str(S(floormod(x * 8, 4))) == "0");
  CHECK(str(S(floordiv(floordiv(x, 4), 8))) == "x // 32");
  CHECK(str(S(floormod(floormod(x, 8), 4))) == "x % 4");
  CHECK(str(S(floordiv(x, 1))) == "x");
  CHECK(str(S(floormod(x, 1))) == "0");
  CHECK(str(S(floordiv(x * 8 + j, 4))) == "x * 2 + j // 4");
  CHECK(str(S(floordiv(x * 6 + 2, 4))) == "(x * 3 + 1) // 2");
  CHECK(str(S(floordiv(x, 4))) == "x // 4");
  // unknown bounds keep the division
  CHECK(str(S(floormod(x + 1, 8))) == "(x + 1) % 8");
  // truncation behaves like flooring for nonnegative operands
  CHECK(str(an.simplify(truncdiv(i * 32 + j, 32))) == "i");
  CHECK(S(truncdiv(x, Expr(4))).kind() == ExprKind::Div);
}

TEST_CASE("split and fuse index expressions collapse", "[arith]") {
  Analyzer an;
  Var f = make_var("fused"), i0 = make_var("i0"), i1 = make_var("i1");
  an.bind(f, Range::from_min_extent(0, 128 * 64));
  an.bind(i0, Range::from_min_extent(0, 4));
  an.bind(i1, Range::from_min_extent(0, 32));
  // fuse then re-linearize
  CHECK(str(an.simplify(floordiv(f, 64) * 64 + floormod(f, 64))) == "fused");
  // split of a fused index
  Expr i = floordiv(f, 64), j = floormod(f, 64);
  CHECK(str(an.simplify(i * 64 + j)) == "fused");
  // split i = i0 * 32 + i1 and recover its pieces
  Expr split = i0 * 32 + i1;
  CHECK(str(an.simplify(floordiv(split, 32))) == "i0");
  CHECK(str(an.simplify(floormod(split, 32))) == "i1");
  // fuse (i0, i1) into g then split back
  Var g = make_var("g");
  an.bind(g, Range::from_min_extent(0, 128));
  CHECK(str(an.simplify(floordiv(g, 32) * 32 + floormod(g, 32))) == "g");
}

TEST_CASE("a fused loop split by a divisor of an inner extent divides through", "[arith]") {
  // Four loops (56, 56, 64) fused into f and split f = o * 256 + t: 256
  // divides 56 * 64, so each iterator is a division of o or t alone.
  Analyzer an;
  Var o = make_var("o"), t = make_var("t"), x = make_var("x"), y = make_var("y");
  an.bind(o, Range::from_min_extent(0, 784));
  an.bind(t, Range::from_min_extent(0, 256));
  const Expr f = o * 256 + t;
  CHECK(str(an.simplify(floordiv(f, 3584))) == "o // 14");
  CHECK(str(an.simplify(floormod(floordiv(f, 64), 56))) == "o % 14 * 4 + t // 64");
  CHECK(str(an.simplify(floormod(f, 3584))) == "o % 14 * 256 + t");
  CHECK(str(an.simplify(floordiv(f + 5, 3584))) == "(o * 256 + t + 5) // 3584");
  // Multiples of d stay outside; the constant's multiple of c joins o.
  CHECK(str(an.simplify(floordiv(o * 256 + t + 3584 * 2, 3584))) == "o // 14 + 2");
  CHECK(str(an.simplify(floordiv(o * 256 + 512 + t, 3584))) == "(o + 2) // 14");
  // Not when the inner part may reach c (t up to 255 against c = 128) or
  // its sign is unknown.
  CHECK(str(an.simplify(floordiv(o * 128 + t, 3584))) == "(o * 128 + t) // 3584");
  CHECK(str(S(floordiv(x * 256 + y, 3584))) == "(x * 256 + y) // 3584");
}

TEST_CASE("bounds through arithmetic", "[arith]") {
  Analyzer an;
  Var i = make_var("i"), j = make_var("j"), x = make_var("x");
  an.bind(i, Range::from_min_extent(0, 4));
  an.bind(j, ConstIntBound{-3, 5});
  auto b = an.const_int_bound(i * 32 + j);
  CHECK(b.min == -3);
  CHECK(b.max == 101);
  b = an.const_int_bound(i - j);
  CHECK(b.min == -5);
  CHECK(b.max == 6);
  b = an.const_int_bound(floordiv(j, 2));
  CHECK(b.min == -2);
  CHECK(b.max == 2);
  b = an.const_int_bound(floormod(x, 8));
  CHECK(b.min == 0);
  CHECK(b.max == 7);
  b = an.const_int_bound(min(Expr(i), Expr(j)));
  CHECK(b.min == -3);
  CHECK(b.max == 3);
  b = an.const_int_bound(make_select(Expr(x) < 0, i, j + 10));
  CHECK(b.min == 0);
  CHECK(b.max == 15);
  b = an.const_int_bound(make_cast(DataType::int64(), i));
  CHECK(b.min == 0);
  CHECK(b.max == 3);
  b = an.const_int_bound(x);
  CHECK_FALSE(b.min);
  CHECK_FALSE(b.max);
  b = an.const_int_bound(make_cast(DataType::int8(), i * 100));
  CHECK_FALSE(b.min);  // may wrap: the whole int8 range, i.e. unbounded
  CHECK_FALSE(b.max);
  CHECK(an.const_int_bound(Expr(7)).is_const());
  // products that could overflow int64 are unbounded, not wrong
  Var big = make_var("big", DataType::int64());
  an.bind(big, ConstIntBound{-(int64_t{1} << 62), int64_t{1} << 62});
  b = an.const_int_bound(Expr(big) * big * big);
  CHECK_FALSE(b.min);
  CHECK_FALSE(b.max);
  b = an.const_int_bound(floordiv(Expr(big), make_int(1 << 30, DataType::int64())));
  CHECK(b.min == -(int64_t{1} << 32));
  CHECK(b.max == int64_t{1} << 32);
}

TEST_CASE("min, max and comparisons use bounds", "[arith]") {
  Analyzer an;
  Var i = make_var("i"), j = make_var("j"), x = make_var("x");
  an.bind(i, Range::from_min_extent(0, 4));
  an.bind(j, Range::from_min_extent(0, 32));
  CHECK(str(an.simplify(min(Expr(i), Expr(10)))) == "i");
  CHECK(str(an.simplify(max(Expr(i), Expr(10)))) == "10");
  CHECK(str(an.simplify(min(Expr(x), x + 1))) == "x");
  CHECK(str(an.simplify(max(Expr(x), x + 1))) == "x + 1");
  CHECK(str(an.simplify(min(Expr(x), Expr(j)))) == "min(x, j)");
  CHECK(str(an.simplify(i * 32 + j < 128)) == "True");
  CHECK(str(an.simplify(i * 32 + j >= 128)) == "False");
  CHECK(str(an.simplify(Expr(i) == 7)) == "False");
  CHECK(str(an.simplify(x + 1 > x)) == "True");
  CHECK(an.can_prove(i * 32 + j < 128));
  CHECK_FALSE(an.can_prove(i * 32 + j < 127));
  CHECK(an.can_prove(logical_and(Expr(i) < 4, Expr(j) >= 0)));
  CHECK_FALSE(an.can_prove(Expr(x) < 4));
  CHECK(an.can_prove_equal(i * 2 + i, i * 3));
  CHECK_FALSE(an.can_prove_equal(i * 2, i * 3));
  CHECK(str(an.simplify(Expr(x) < 4)) == "x < 4");
}

TEST_CASE("simplify is total and keeps dtypes on non-integer and vector IR", "[arith]") {
  Var x = make_var("x");
  Buffer A = make_buffer("A", DataType::float32(), {64});
  Expr load = make_load(A, {x * 2 - x});
  Expr s = S(load);
  CHECK(s.dtype() == DataType::float32());
  CHECK(str(s) == "load[x]");
  Expr ramp = make_ramp(x + 0, Expr(1) + 0, 4);
  Expr r = S(ramp);
  CHECK(r.kind() == ExprKind::Ramp);
  CHECK(str(r) == "ramp(x, 1, 4)");
  Expr vec = make_binary(ExprKind::Add, r, make_broadcast(Expr(3) * 2, 4));
  Expr vs = S(vec);
  CHECK(vs.dtype() == DataType::int32().with_lanes(4));
  CHECK(str(vs) == "ramp(x, 1, 4) + broadcast(6, 4)");
  Expr call = make_call(DataType::float32(), "exp", {make_float(1.0)});
  CHECK(S(call).same_as(call));
  CHECK(S(make_string("s")).kind() == ExprKind::StringImm);
  CHECK(str(S(make_call(DataType::int32(), "if_then_else", {Expr(1) < 2, x, Expr(0)}))) == "x");
  CHECK_FALSE(S(Expr()));
}

// ---- randomized soundness -----------------------------------------------------

namespace {

struct RandomExprGen {
  std::mt19937 rng;
  std::vector<Var> vars;

  int pick(int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); }

  Expr leaf() {
    if (pick(3) == 0) return Expr(pick(19) - 9);
    return vars[static_cast<size_t>(pick(static_cast<int>(vars.size())))];
  }

  Expr cond(int depth) {
    return make_binary(static_cast<ExprKind>(static_cast<int>(ExprKind::EQ) + pick(6)), gen(depth),
                       gen(depth));
  }

  Expr gen(int depth) {
    if (depth <= 0 || pick(5) == 0) return leaf();
    Expr a = gen(depth - 1);
    switch (pick(12)) {
      case 0:
      case 1:
        return a + gen(depth - 1);
      case 2:
        return a - gen(depth - 1);
      case 3:
        return a * gen(depth - 1);
      case 4:
        return a * Expr(pick(9) - 4);
      case 5: {
        int d = pick(2) ? (pick(16) + 1) : -(pick(8) + 1);
        return floordiv(a, Expr(d));
      }
      case 6:
        return floormod(a, Expr(pick(2) ? pick(16) + 1 : -(pick(8) + 1)));
      case 7:
        return pick(2) ? truncdiv(a, Expr(pick(12) + 1)) : truncmod(a, Expr(pick(12) + 1));
      case 8:
        return min(a, gen(depth - 1));
      case 9:
        return max(a, gen(depth - 1));
      case 10:
        return make_select(cond(depth - 1), a, gen(depth - 1));
      default:
        return pick(2) ? floordiv(a, gen(depth - 1)) : floormod(a, gen(depth - 1));
    }
  }
};

}  // namespace

TEST_CASE("simplification preserves values on random integer expressions", "[arith]") {
  RandomExprGen g{std::mt19937(12345), {make_var("a"), make_var("b"), make_var("c")}};
  const int lo[3] = {0, -3, 0}, ext[3] = {5, 7, 33};
  Analyzer an;
  for (int v = 0; v < 3; ++v)
    an.bind(g.vars[static_cast<size_t>(v)], Range::from_min_extent(lo[v], ext[v]));
  int checked = 0;
  // TIRC_ARITH_RANDOM: fewer expressions under the sanitizers (CI), more for a long run.
  const int expressions = test::env_int("TIRC_ARITH_RANDOM", 4000);
  for (int iter = 0; iter < expressions; ++iter) {
    Expr e = iter % 4 == 0 ? g.cond(3) : g.gen(4);
    Expr s = an.simplify(e);
    REQUIRE(s.dtype() == e.dtype());
    {
      Expr again = an.simplify(s);
      INFO("once:  " << str(s));
      INFO("twice: " << str(again));
      CHECK(structural_equal(again, s));  // simplification reaches a fixed point
    }
    bool all_defined = true;
    tirc::test::Env env;
    for (int a = lo[0]; a < lo[0] + ext[0] && all_defined; ++a)
      for (int b = lo[1]; b < lo[1] + ext[1] && all_defined; ++b)
        for (int c = lo[2]; c < lo[2] + ext[2]; c += 4) {
          env[g.vars[0].get()] = a;
          env[g.vars[1].get()] = b;
          env[g.vars[2].get()] = c;
          auto want = tirc::test::eval(e, env);
          if (!want) {
            all_defined = false;  // the original divides by zero somewhere
            break;
          }
          auto got = tirc::test::eval(s, env);
          INFO("original:   " << str(e));
          INFO("simplified: " << str(s));
          INFO("a=" << a << " b=" << b << " c=" << c);
          REQUIRE(got);
          REQUIRE(*got == *want);
        }
    if (all_defined) ++checked;
  }
  CHECK(checked > expressions / 2);
}

TEST_CASE("bounds contain every value on random integer expressions", "[arith]") {
  RandomExprGen g{std::mt19937(777), {make_var("a"), make_var("b")}};
  Analyzer an;
  an.bind(g.vars[0], Range::from_min_extent(-4, 9));
  an.bind(g.vars[1], Range::from_min_extent(0, 16));
  for (int iter = 0; iter < 3000; ++iter) {
    Expr e = g.gen(4);
    ConstIntBound b = an.const_int_bound(e);
    tirc::test::Env env;
    for (int a = -4; a < 5; ++a)
      for (int c = 0; c < 16; ++c) {
        env[g.vars[0].get()] = a;
        env[g.vars[1].get()] = c;
        auto v = tirc::test::eval(e, env);
        if (!v) continue;
        INFO(str(e) << " at a=" << a << " b=" << c << " = " << *v);
        if (b.min) REQUIRE(*v >= *b.min);
        if (b.max) REQUIRE(*v <= *b.max);
      }
  }
}
