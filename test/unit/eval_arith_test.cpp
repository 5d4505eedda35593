#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "eval_test_util.h"
#include "ir/eval/numeric.h"

using namespace tirc;
using namespace tirc::test;

namespace {
Expr imm(int64_t v, DataType t = i32) {
  return make_int(v, t);
}
Expr fimm(double v, DataType t = f32) {
  return make_float(v, t);
}
}  // namespace

TEST_CASE("integers wrap to their width", "[eval]") {
  const DataType i8 = DataType::int8(), u8 = DataType::uint8(), i16 = DataType::int16();
  CHECK(eval_int(imm(100, i8) + imm(100, i8)) == -56);
  CHECK(eval_int(imm(-128, i8) - imm(1, i8)) == 127);
  CHECK(eval_int(imm(200, u8) + imm(100, u8)) == 44);
  CHECK(eval_int(imm(0, u8) - imm(1, u8)) == 255);
  CHECK(eval_int(imm(300, i16) * imm(300, i16)) == static_cast<int16_t>(90000));
  CHECK(eval_int(imm(2147483647) + imm(1)) == -2147483648LL);
  CHECK(eval_int(imm(65536) * imm(65536)) == 0);
  CHECK(eval_int(imm(-2147483648LL) / imm(-1)) == -2147483648LL);
  CHECK(eval_int(imm(INT64_MIN, DataType::int64()) / imm(-1, DataType::int64())) == INT64_MIN);
}

TEST_CASE("floordiv/floormod follow Python, Div/Mod follow C", "[eval]") {
  struct Case {
    int64_t a, b, fdiv, fmod, tdiv, tmod;
  };
  for (Case c : {Case{-7, 2, -4, 1, -3, -1}, Case{7, -2, -4, -1, -3, 1}, Case{-7, -2, 3, -1, 3, -1},
                 Case{7, 2, 3, 1, 3, 1}, Case{-8, 2, -4, 0, -4, 0}, Case{0, -3, 0, 0, 0, 0}}) {
    CAPTURE(c.a, c.b);
    CHECK(eval_int(floordiv(imm(c.a), imm(c.b))) == c.fdiv);
    CHECK(eval_int(floormod(imm(c.a), imm(c.b))) == c.fmod);
    CHECK(eval_int(truncdiv(imm(c.a), imm(c.b))) == c.tdiv);
    CHECK(eval_int(truncmod(imm(c.a), imm(c.b))) == c.tmod);
  }
  CHECK(eval_float(fimm(7) / fimm(2)) == 3.5);
  CHECK(eval_float(floordiv(fimm(-7), fimm(2))) == -4);
  CHECK(eval_float(floormod(fimm(-7), fimm(2))) == 1);
}

TEST_CASE("division and modulo by zero are errors", "[eval]") {
  CHECK_THROWS_WITH(eval_int(truncdiv(imm(1), imm(0))), Catch::Contains("division by zero"));
  CHECK_THROWS_WITH(eval_int(floormod(imm(1), imm(0))), Catch::Contains("modulo by zero"));
  CHECK_THROWS_AS(eval_int(floordiv(imm(1), imm(0))), Error);
  CHECK(std::isinf(eval_float(fimm(1) / fimm(0))));  // floats stay IEEE
}

TEST_CASE("float16 and bfloat16 round to nearest even after every operation", "[eval]") {
  const DataType f16 = DataType::float16(), bf16 = DataType::bfloat16();
  CHECK(eval_float(fimm(1, f16) + fimm(std::ldexp(1, -11), f16)) == 1.0);  // tie to even: down
  CHECK(eval_float(fimm(1, f16) + fimm(3 * std::ldexp(1, -11), f16)) ==
        1 + std::ldexp(1, -9));  // tie: up
  CHECK(eval_float(fimm(65504, f16) + fimm(8, f16)) == 65504);
  CHECK(std::isinf(eval_float(fimm(65504, f16) + fimm(16, f16))));
  CHECK(eval_float(fimm(1, bf16) + fimm(std::ldexp(1, -8), bf16)) == 1.0);
  CHECK(eval_float(fimm(1, bf16) + fimm(3 * std::ldexp(1, -8), bf16)) == 1 + std::ldexp(1, -6));
  // (a + b) - a loses b's low bits in float16 but not in float32.
  CHECK(eval_float((fimm(1024, f16) + fimm(0.25, f16)) - fimm(1024, f16)) == 0);
  CHECK(eval_float((fimm(1024) + fimm(0.25)) - fimm(1024)) == 0.25);
  // float32 rounds after each step too: 2^24 + 1 is not representable.
  CHECK(eval_float(fimm(16777216) + fimm(1)) == 16777216);
  CHECK(eval_float(fimm(16777216, DataType::float64()) + fimm(1, DataType::float64())) == 16777217);

  using namespace tirc::numeric;
  CHECK(encode_half(1.0) == 0x3C00);
  CHECK(encode_half(-2.0) == 0xC000);
  CHECK(encode_half(std::ldexp(1, -24)) == 1);
  CHECK(encode_half(std::ldexp(1, -25)) == 0);      // tie to even
  CHECK(encode_half(3 * std::ldexp(1, -25)) == 2);  // tie to even
  CHECK(encode_half(std::ldexp(1023, -24) + std::ldexp(1, -25)) ==
        0x0400);  // rounds up into the normals
  CHECK(encode_bfloat(1.0) == 0x3F80);
  CHECK(encode_bfloat(3.0e38) == 0x7F62);
  CHECK(std::isnan(decode_half(encode_half(std::nan("")))));
  for (uint32_t bits = 0; bits < 0x7C00; bits += 37)
    CHECK(encode_half(decode_half(static_cast<uint16_t>(bits))) == bits);
  for (uint32_t bits = 0; bits < 0x7F80; bits += 97)
    CHECK(encode_bfloat(decode_bfloat(static_cast<uint16_t>(bits))) == bits);
}

TEST_CASE("casts truncate, saturate, round and test nonzero", "[eval]") {
  CHECK(eval_int(make_cast(i32, fimm(-2.7))) == -2);
  CHECK(eval_int(make_cast(i32, fimm(2.7))) == 2);
  CHECK(eval_int(make_cast(i32, fimm(1e10))) == INT32_MAX);
  CHECK(eval_int(make_cast(i32, fimm(-1e10))) == INT32_MIN);
  CHECK(eval_int(make_cast(DataType::int8(), fimm(300))) == 127);
  CHECK(eval_int(make_cast(DataType::uint8(), fimm(-5))) == 0);
  CHECK(eval_int(make_cast(i32, fimm(std::nan("")))) == 0);
  CHECK(eval_int(make_cast(DataType::int8(), imm(300))) == 44);
  CHECK(eval_int(make_cast(DataType::uint8(), imm(-1))) == 255);
  CHECK(eval_int(make_cast(DataType::boolean(), imm(5))) == 1);
  CHECK(eval_int(make_cast(DataType::boolean(), fimm(0.0))) == 0);
  CHECK(eval_float(make_cast(f32, imm(16777217))) == 16777216);
  CHECK(eval_float(make_cast(f32, make_bool(true))) == 1);
  CHECK(eval_float(make_cast(DataType::float16(), fimm(0.1))) ==
        numeric::decode_half(numeric::encode_half(0.1)));
  CHECK(eval_float(make_cast(DataType::float64(), fimm(0.1))) == static_cast<double>(0.1f));
}

TEST_CASE("comparisons, logic, min/max and Select", "[eval]") {
  CHECK(eval_int(imm(3) < imm(4)) == 1);
  CHECK(eval_int(fimm(3) >= fimm(4)) == 0);
  CHECK(eval_int(imm(255, DataType::uint8()) > imm(1, DataType::uint8())) == 1);
  CHECK(eval_int(make_int(-1, DataType(DataType::Code::UInt, 64)) >
                 make_int(1, DataType(DataType::Code::UInt, 64))) == 1);
  CHECK(eval_int(logical_and(make_bool(true), make_not(make_bool(false)))) == 1);
  CHECK(eval_int(logical_or(make_bool(false), make_bool(false))) == 0);
  CHECK(eval_int(min(imm(-3), imm(2))) == -3);
  CHECK(eval_float(max(fimm(-3), fimm(2))) == 2);
  CHECK(eval_float(make_select(imm(1) == imm(2), fimm(1), fimm(2))) == 2);
}

TEST_CASE("intrinsics agree with the C++ library", "[eval]") {
  struct Unary {
    const char* name;
    std::function<double(double)> ref;
  };
  const std::vector<Unary> unary = {
      {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"erf", [](double x) { return std::erf(x); }},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"abs", [](double x) { return std::fabs(x); }},
      {"fabs", [](double x) { return std::fabs(x); }},
      {"floor", [](double x) { return std::floor(x); }},
      {"ceil", [](double x) { return std::ceil(x); }},
      {"round", [](double x) { return std::nearbyint(x); }},
      {"trunc", [](double x) { return std::trunc(x); }},
      {"exp2", [](double x) { return std::exp2(x); }},
      {"log2", [](double x) { return std::log2(x); }},
      {"log10", [](double x) { return std::log10(x); }},
      {"sin", [](double x) { return std::sin(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }},
      {"sign", [](double x) { return x > 0   ? 1.0
                                     : x < 0 ? -1.0
                                             : x; }},
  };
  for (const Unary& u : unary)
    for (double x : {0.3, 1.7, 2.5, -0.5, 3.5, -2.5, 0.0}) {
      CAPTURE(u.name, x);
      const double want64 = u.ref(x);
      const double got64 =
          eval_float(make_call(DataType::float64(), u.name, {fimm(x, DataType::float64())}));
      if (std::isnan(want64)) {
        CHECK(std::isnan(got64));
        continue;
      }
      CHECK(got64 == want64);
      const double xf = static_cast<float>(x);
      CHECK(eval_float(make_call(f32, u.name, {fimm(x)})) == static_cast<float>(u.ref(xf)));
    }
  CHECK(eval_float(make_call(f32, "round", {fimm(2.5)})) == 2);  // half to even
  CHECK(eval_float(make_call(f32, "round", {fimm(-3.5)})) == -4);
  CHECK(eval_float(make_call(f32, "pow", {fimm(2), fimm(10)})) == 1024);
  CHECK(eval_float(make_call(f32, "copysign", {fimm(2), fimm(-1)})) == -2);
  CHECK(eval_float(make_call(f32, "tir.exp", {fimm(0)})) == 1);
  CHECK(eval_int(make_call(i32, "abs", {imm(-5)})) == 5);
  CHECK(eval_int(make_call(i32, "shift_left", {imm(3), imm(4)})) == 48);
  CHECK(eval_int(make_call(DataType::boolean(), "isnan", {make_call(f32, "log", {fimm(-1)})})) ==
        1);
  CHECK_THROWS_WITH(eval_float(make_call(f32, "frobnicate", {fimm(1)})),
                    Catch::Contains("frobnicate"));
  CHECK_THROWS_WITH(eval_float(make_call(f32, "pow", {fimm(1)})), Catch::Contains("pow"));
}
