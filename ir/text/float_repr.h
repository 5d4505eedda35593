// Shortest round-trip decimal spelling of a double, in the style of Python's
// repr(float) but without a trailing ".0" on integral values.
#pragma once

#include <string>

namespace tirc {

// "0.1", "2", "-0.5", "1e-05", "1e+20", "123456789012345"; "inf", "-inf", "nan"
// for the non-finite values. Reading the result with strtod gives back v exactly.
std::string float_repr(double v);

}  // namespace tirc
