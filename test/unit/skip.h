// Skips that ctest reports. Catch2 v2 has no SKIP, and a test case that just
// returns when its data, tool or ISA is missing would be listed as passed.
// TIRC_SKIP prints a marker line that test/CMakeLists.txt registers as the
// SKIP_REGULAR_EXPRESSION of every discovered test, so ctest lists the test as
// "Not Run (Skipped)". ctest then ignores the test's result altogether, so skip
// before any assertion, and give a test case that covers several ISAs one test
// case per ISA rather than skipping the whole of it for one missing ISA.
#pragma once

#include <iostream>

#define TIRC_SKIP_MARKER "TIRC-SKIPPED: "

// Prints the marker with `reason` (anything `<<` accepts) and returns from the
// enclosing function: the test case itself, or a void helper it ends with.
#define TIRC_SKIP(reason)                                     \
  do {                                                        \
    std::cout << TIRC_SKIP_MARKER << reason << std::endl;     \
    return;                                                   \
  } while (false)
