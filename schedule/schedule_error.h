// The error a schedule primitive raises when it cannot apply.
#pragma once

#include <string>

#include "ir/error.h"

namespace tirc {

// "split: loop i has non-constant extent n". The message always starts with the
// primitive's name and names the block or loop concerned. A primitive that
// throws leaves the schedule unchanged.
class ScheduleError : public Error {
 public:
  ScheduleError(std::string primitive, const std::string& reason, SourceLoc loc = {})
      : Error(primitive + ": " + reason, std::move(loc)), primitive_(std::move(primitive)) {}
  const std::string& primitive() const { return primitive_; }

 private:
  std::string primitive_;
};

}  // namespace tirc
