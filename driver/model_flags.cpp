#include "driver/model_flags.h"

#include <cctype>
#include <limits>
#include <optional>

namespace tirc::driver {

namespace {

// "128" -> 128; nullopt for anything but a positive decimal integer that fits.
std::optional<int64_t> positive_integer(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  const int64_t value = std::stoll(text);
  return value > 0 ? std::optional<int64_t>(value) : std::nullopt;
}

// "NAME=VALUE" split at its last '=' (a name may hold one, a value not);
// nullopt when there is none or either side is empty.
std::optional<std::pair<std::string, std::string>> name_and_value(const std::string& text) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return std::nullopt;
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

// The value of one --dim, or the reason it is malformed.
struct ParsedDim {
  onnx::DimBindings::Dim dim;
  std::string error;
};

ParsedDim parse_dim(const std::string& text) {
  ParsedDim p;
  const auto nv = name_and_value(text);
  if (!nv) {
    p.error = "'" + text + "' is not NAME=VALUE, such as batch=1";
    return p;
  }
  const std::optional<int64_t> value = positive_integer(nv->second);
  if (!value) {
    p.error = "'" + text + "': the value '" + nv->second + "' is not a positive integer";
    return p;
  }
  p.dim = {nv->first, *value, "--dim " + text};
  return p;
}

// The value of one --shape, or the reason it is malformed.
struct ParsedShape {
  onnx::DimBindings::InputShape shape;
  std::string error;
};

ParsedShape parse_shape(const std::string& text) {
  ParsedShape p;
  const auto nv = name_and_value(text);
  const std::string usage =
      "'" + text + "' is not INPUT=DIMS, such as x=1x3x224x224 (positive integers joined by 'x')";
  if (!nv) {
    p.error = usage;
    return p;
  }
  onnx::Shape shape;
  size_t start = 0;
  while (true) {
    const size_t end = nv->second.find('x', start);
    const std::optional<int64_t> dim = positive_integer(nv->second.substr(start, end - start));
    if (!dim) {
      p.error = usage;
      return p;
    }
    shape.push_back(*dim);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  p.shape = {nv->first, std::move(shape), "--shape " + text};
  return p;
}

// One value per occurrence (`--dim a=1 model.onnx` must not take the model
// as a second value), checked by `parse` as it is read.
template <class Parsed>
CLI::Option* add_binding_flag(CLI::App* cmd, const std::string& name, const std::string& type,
                              const std::string& help, Parsed (*parse)(const std::string&),
                              std::function<void(Parsed)> store) {
  return cmd
      ->add_option_function<std::vector<std::string>>(
          name,
          [parse, store](const std::vector<std::string>& values) {
            for (const std::string& v : values) store(parse(v));
          },
          help)
      ->type_name(type)
      ->allow_extra_args(false)
      ->check(CLI::Validator([parse](std::string& v) { return parse(v).error; }, ""));
}

}  // namespace

void add_model_flags(CLI::App* cmd, ModelOptions& model) {
  cmd->add_option_function<std::string>(
         "--layout",
         [&model](const std::string& v) {
           model.layout = v == "nhwc"   ? ModelOptions::Layout::Nhwc
                          : v == "nchw" ? ModelOptions::Layout::Nchw
                                        : ModelOptions::Layout::Auto;
         },
         "Activation layout of an ONNX model's convolutions and pools: auto (the default: "
         "nhwc for a model with depthwise convolutions or whose convolutions all have a "
         "multiple of 16 output channels, else nchw), nhwc (channels last) or nchw (ONNX's own)")
      ->check(CLI::IsMember({"auto", "nhwc", "nchw"}));
  add_binding_flag<ParsedDim>(
      cmd, "--dim", "NAME=VALUE",
      "Bind the ONNX model's symbolic dimension (dim_param) NAME to VALUE wherever it appears "
      "(repeatable)",
      parse_dim, [&model](ParsedDim p) { model.dims.dims.push_back(std::move(p.dim)); });
  add_binding_flag<ParsedShape>(
      cmd, "--shape", "INPUT=DIMS",
      "Fix the whole shape of the ONNX model's input INPUT, such as x=1x3x224x224; its "
      "dim_params take the values given (repeatable)",
      parse_shape, [&model](ParsedShape p) { model.dims.shapes.push_back(std::move(p.shape)); });
}

ModelOptions model_options_for_target(ModelOptions model, bool gpu) {
  if (gpu) model.blocked_weights_bytes = std::numeric_limits<size_t>::max();
  return model;
}

}  // namespace tirc::driver
