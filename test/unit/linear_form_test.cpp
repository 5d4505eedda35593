// arith::decompose: the affine reading of an expression, plain (every
// non-linear subexpression a term) and relative to variables of interest
// under each of AffineRules' options.
#include <catch2/catch.hpp>

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "arith_test_util.h"
#include "ir/arith/linear_form.h"

using namespace tirc;
using arith::AffineRules;
using arith::LinearForm;
using arith::TermKind;
using tirc::test::str;

namespace {

// "coef*term" per term, in order, with a kind letter (v: variable of
// interest, i: invariant, f: floor part), then the constant.
std::string show(const LinearForm& f) {
  std::string out;
  for (const arith::LinearTerm& t : f.terms) {
    const char* kind = t.kind == TermKind::Var ? "v" : t.kind == TermKind::Floor ? "f" : "i";
    out += std::to_string(t.coef) + "*" + kind + "(" + str(t.term) + ") ";
  }
  return out + std::to_string(f.constant);
}

AffineRules interest_in(const std::vector<Var>& vars) {
  AffineRules rules;
  rules.of_interest = [vars](const VarNode* v) {
    for (const Var& x : vars)
      if (x.get() == v) return true;
    return false;
  };
  return rules;
}

}  // namespace

TEST_CASE("decompose merges equal terms in first-appearance order", "[arith][linear_form]") {
  Var x = make_var("x"), y = make_var("y");
  CHECK(show(arith::decompose(x * 4 + y - 3 + x)) == "5*i(x) 1*i(y) -3");
  CHECK(show(arith::decompose(2 * (x - y) + 7)) == "2*i(x) -2*i(y) 7");
  CHECK(show(arith::decompose(x + y - x)) == "1*i(y) 0");
  // Each subexpression's form is built first, then added into its parent's:
  // x cancels inside the parenthesis only, so it keeps its first place.
  CHECK(show(arith::decompose(x + y + (x * -1 + x))) == "1*i(x) 1*i(y) 0");
  CHECK(show(arith::decompose(x - x + y + x)) == "1*i(y) 1*i(x) 0");
  // Constant * constant folds; a constant alone is a constant form.
  CHECK(show(arith::decompose(Expr(6) * Expr(7))) == "42");
  CHECK(arith::decompose(Expr(5)).is_constant());
}

TEST_CASE("decompose reads every other subexpression as one term", "[arith][linear_form]") {
  Var x = make_var("x"), y = make_var("y");
  Var l = make_var("l", DataType::int64());
  CHECK(show(arith::decompose(floordiv(x, 4) * 2 + x * y)) == "2*i(x // 4) 1*i(x * y) 0");
  CHECK(show(arith::decompose(make_cast(DataType::int32(), l) * 3 + 1)) == "3*i(int32(l)) 1");
  // Equal terms merge by structure, not identity.
  CHECK(show(arith::decompose(floordiv(x, 4) + floordiv(x, 4))) == "2*i(x // 4) 0");
}

TEST_CASE("decompose wraps coefficients to the width of the type", "[arith][linear_form]") {
  Var x = make_var("x");
  // 65536 * 65536 is 0 in int32: the term disappears.
  CHECK(show(arith::decompose(x * 65536 * 65536 + 1)) == "1");
  CHECK(show(arith::decompose(x * 2147483647 * 2)) == "-2*i(x) 0");
  Var a = make_var("a", DataType::int8());
  CHECK(show(arith::decompose(a * make_int(100, DataType::int8()) *
                              make_int(3, DataType::int8()))) == "44*i(a) 0");
  CHECK(show(arith::decompose(Expr(0) - x * 3)) == "-3*i(x) 0");
  CHECK(arith::decompose(Expr(2147483647) + 1).constant == -2147483648LL);
}

TEST_CASE("decompose relative to variables of interest", "[arith][linear_form]") {
  Var i = make_var("i"), j = make_var("j"), n = make_var("n");
  AffineRules rules = interest_in({i, j});
  CHECK(show(*arith::decompose(i * 4 + n * 2 + j - 1, rules)) == "4*v(i) 2*i(n) 1*v(j) -1");
  CHECK(show(*arith::decompose(n + 3, rules)) == "1*i(n) 3");
  // Anything not read through that uses a variable of interest is not affine.
  CHECK_FALSE(arith::decompose(i * j, rules));
  CHECK_FALSE(arith::decompose(n * i, rules));
  CHECK_FALSE(arith::decompose(floordiv(i, 4), rules));
  CHECK_FALSE(arith::decompose(make_cast(DataType::int64(), i), rules));
  // ... and anything that uses none is an invariant term.
  CHECK(show(*arith::decompose(i + floordiv(n, 4) + n * n, rules)) ==
        "1*v(i) 1*i(n // 4) 1*i(n * n) 0");
}

TEST_CASE("decompose: whole invariant subtrees", "[arith][linear_form]") {
  Var i = make_var("i"), n = make_var("n"), m = make_var("m");
  AffineRules rules = interest_in({i});
  CHECK(show(*arith::decompose(i + (n + m) * 2, rules)) == "1*v(i) 2*i(n) 2*i(m) 0");
  rules.whole_invariant_subtrees = true;
  CHECK(show(*arith::decompose(i + (n + m) * 2, rules)) == "1*v(i) 1*i((n + m) * 2) 0");
  // A constant stays a constant; a constant expression is an invariant term.
  CHECK(show(*arith::decompose(i + 5, rules)) == "1*v(i) 5");
  CHECK(show(*arith::decompose(i + Expr(2) * Expr(3), rules)) == "1*v(i) 1*i(2 * 3) 0");
  CHECK_FALSE(arith::decompose(i * i, rules));
}

TEST_CASE("decompose: looking through integer casts", "[arith][linear_form]") {
  Var i = make_var("i"), n = make_var("n");
  AffineRules rules = interest_in({i});
  rules.look_through_int_casts = true;
  Expr idx = make_cast(DataType::int64(), i * 4 + n) * 3 + make_int(2, DataType::int64());
  LinearForm f = *arith::decompose(idx, rules);
  CHECK(f.dtype == DataType::int64());
  CHECK(show(f) == "12*v(i) 3*i(n) 2");
  // Coefficients are 64-bit: the int32 product is not wrapped.
  CHECK(arith::decompose(make_cast(DataType::int64(), i * 65536 * 65536), rules)
            ->coefficient(i.get()) == (int64_t{1} << 32));
  // A cast from or to a float is not read through.
  Expr to_float = make_cast(DataType::float32(), i);
  CHECK_FALSE(arith::decompose(make_cast(DataType::int32(), to_float), rules));
  // Without the option an integer cast of a variable of interest is not affine.
  rules.look_through_int_casts = false;
  CHECK_FALSE(arith::decompose(make_cast(DataType::int64(), i), rules));
}

TEST_CASE("decompose: symbolic factors", "[arith][linear_form]") {
  Var i = make_var("i"), j = make_var("j"), n = make_var("n"), m = make_var("m");
  AffineRules rules = interest_in({i, j});
  rules.symbolic_factors = true;
  // The coefficient counts the constant factors only.
  CHECK(show(*arith::decompose(n * i * 2 + j * (m + 1), rules)) == "2*v(i) 1*v(j) 0");
  CHECK_FALSE(arith::decompose(i * j, rules));
  CHECK_FALSE(arith::decompose((i + n) * (j + 1), rules));
  // The left operand is the factor when both could be: n * floordiv(m, n)
  // reads the floordiv, which floor_parts refuses for a symbolic divisor.
  rules.floor_parts = true;
  CHECK_FALSE(arith::decompose(n * floordiv(m, n), rules));
  CHECK(show(*arith::decompose(floordiv(m, n) * n, rules)) == "1*i(n) 0");
}

TEST_CASE("decompose: floordiv and floormod parts", "[arith][linear_form]") {
  Var i = make_var("i"), j = make_var("j"), n = make_var("n");
  AffineRules rules = interest_in({i, j});
  rules.floor_parts = true;
  LinearForm f = *arith::decompose(floordiv(i * 2 + j, 8) * 16 + floormod(j, 8), rules);
  CHECK(show(f) == "16*f((i * 2 + j) // 8) 1*f(j % 8) 0");
  CHECK(f.has_kind(TermKind::Floor));
  CHECK_FALSE(f.has_kind(TermKind::Var));
  // Nested: the numerator of a floor part is itself a floor part.
  LinearForm outer = *arith::decompose(floordiv(floordiv(i, 4), 2), rules);
  REQUIRE(outer.terms.size() == 1);
  LinearForm inner = *arith::decompose(outer.terms[0].term.as<BinaryNode>()->a, rules);
  CHECK(show(inner) == "1*f(i // 4) 0");
  // Only a positive constant divisor, whether or not the numerator uses a
  // variable of interest.
  CHECK_FALSE(arith::decompose(floordiv(i, 0), rules));
  CHECK_FALSE(arith::decompose(floormod(i, -4), rules));
  CHECK_FALSE(arith::decompose(floordiv(i, n), rules));
  CHECK_FALSE(arith::decompose(i + floordiv(n, n), rules));
  CHECK(show(*arith::decompose(floordiv(n, 4), rules)) == "1*f(n // 4) 0");
}

TEST_CASE("decompose without merging keeps every occurrence", "[arith][linear_form]") {
  Var i = make_var("i"), n = make_var("n");
  AffineRules rules = interest_in({i});
  rules.merge_terms = false;
  // A repeated invariant term stays twice, in order.
  LinearForm f = *arith::decompose(n + i + n - i * 3, rules);
  CHECK(show(f) == "1*i(n) 1*v(i) 1*i(n) -3*v(i) 0");
  CHECK(f.coefficient(i.get()) == -2);
  // Cancelled and zero-scaled terms stay too.
  CHECK(show(*arith::decompose(i - i, rules)) == "1*v(i) -1*v(i) 0");
  CHECK(show(*arith::decompose((i + n) * 0, rules)) == "0*v(i) 0*i(n) 0");
  CHECK(arith::decompose(i - i, rules)->coefficient(i.get()) == 0);
}

TEST_CASE("decompose: 64-bit coefficients wrap", "[arith][linear_form]") {
  Var i = make_var("i", DataType::int64());
  AffineRules rules = interest_in({i});
  rules.look_through_int_casts = true;
  const int64_t big = std::numeric_limits<int64_t>::max();
  Expr two = make_int(2, DataType::int64()), huge = make_int(big, DataType::int64());
  CHECK(arith::decompose(i * huge * two, rules)->coefficient(i.get()) == -2);
  CHECK(arith::decompose(i * huge + i, rules)->coefficient(i.get()) ==
        std::numeric_limits<int64_t>::min());
  CHECK(arith::decompose(Expr(0) - i * huge, rules)->coefficient(i.get()) == -big);
}
