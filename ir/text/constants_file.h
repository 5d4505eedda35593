// The side file that holds a module's constants (its weights) next to the
// module's text (ir/text/FORMAT.md, "Constants side file"): the text names it
// with I.module_attrs({"tirc.constants": "model.tir.weights"}).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/ndarray.h"
#include "ir/function.h"

namespace tirc {

inline constexpr const char* kConstantsAttr = "tirc.constants";

// Writes every constant of m (in name order) to `path`.
void write_constants_file(const std::string& path, const IRModule& m);
// The constants in file order. A missing, corrupt or truncated file is a
// tirc::Error naming the file.
std::vector<std::pair<std::string, std::shared_ptr<const NDArray>>> read_constants_file(
    const std::string& path);

// In memory, for tests and for embedding; `what` names the source in errors.
std::string constants_file_bytes(const IRModule& m);
std::vector<std::pair<std::string, std::shared_ptr<const NDArray>>> parse_constants_file(
    std::string_view bytes, const std::string& what);

}  // namespace tirc
