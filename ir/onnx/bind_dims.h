// Values for a model's symbolic dimensions, as onnxruntime's free-dimension
// overrides give them: a dim_param bound by name everywhere it appears (graph
// inputs, outputs, value_info), a graph input's whole shape, and the shapes
// of the data the inputs will be given. tirc compiles static shapes: what
// this leaves unbound in a graph input is an error of fold_and_infer that
// names the flag to use.
#pragma once

#include <string>
#include <vector>

#include "ir/onnx/graph.h"

namespace tirc::onnx {

struct DimBindings {
  // `--dim batch=2`: every dimension declared with dim_param `name` is `value`.
  struct Dim {
    std::string name;
    int64_t value = 0;
    std::string source;  // how diagnostics name it: "--dim batch=2"
  };
  // `--shape x=2x5x32`: graph input `input` is exactly `shape`; its static
  // dimensions must agree, and its dim_params take the values given.
  struct InputShape {
    std::string input;
    Shape shape;
    std::string source;  // "--shape x=2x5x32"
  };
  // The shape of the data graph input i (in order) will get (tirc run's input
  // files): binds like an InputShape for an input with symbolic dimensions;
  // an input whose dimensions are all static is left to the caller's checks.
  struct DataShape {
    Shape shape;
    std::string source;  // "input file 'x.npy'"
  };
  std::vector<Dim> dims = {};
  std::vector<InputShape> shapes = {};
  std::vector<DataShape> data = {};

  // Whether a flag (a Dim or an InputShape) is given; data alone is not one.
  bool has_flags() const { return !dims.empty() || !shapes.empty(); }
};

// `graph` with the bound values in the shapes of its inputs and of every
// tensor that declares the bound dim_params. Throws naming both sources when
// two give one dimension different values, and naming what exists when a
// Dim names no dim_param of the model or an InputShape no graph input.
Graph bind_dimensions(Graph graph, const DimBindings& bindings);

}  // namespace tirc::onnx
