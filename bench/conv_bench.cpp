// fp32 convolution GFLOPS: tirc's default schedule vs oneDNN's convolution
// primitive in the same run, on the conv layers of two ImageNet networks at
// batch 1, 224x224 input, on 1 and 2 threads.
//
//   tirc_conv_bench [--quick] [--threads 1,2] [--layout nchw|nhwc|both]
//
// The tirc kernel is built the way `tirc compile` builds an ONNX Conv: the
// frontend's Conv operator (a pad stage and the conv block) as one kernel,
// in ONNX's NCHW layout or in the channels-last form the layout pass makes
// (ir/onnx/layout.h: activations [N, H, W, C], weights [kh, kw, C, M]), then
// the default rules (tuner/auto_schedule.h) for the host CPU model, then the
// x86 generator. oneDNN gets its preferred layouts (format `any`); like
// tirc's transposes to and from channels-last, its reorders from and to NCHW
// are outside the timing. Every tirc result is
// checked against oneDNN's; a wrong one prints WRONG and the exit status is 1.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/omp_threads.h"
#include "codegen/x86/generator.h"
#include "codegen/x86/jit.h"
#include "ir/error.h"
#include "ir/onnx/build_module.h"
#include "ir/onnx/layout.h"
#include "ir/onnx/op.h"
#include "passes/pipeline.h"
#include "runtime/tirc_runtime.h"
#include "tuner/auto_schedule.h"
#include "tuner/timing.h"

namespace tirc::bench {
namespace {

// One 2-D convolution layer, NCHW, batch 1, square input and kernel,
// padding `pad` on every side.
struct Layer {
  const char* family;  // geomeans are per family
  const char* name;
  int64_t in_channels, out_channels, size, kernel, stride, pad, group;
  int64_t out_size() const { return (size + 2 * pad - kernel) / stride + 1; }
  double flops() const {
    return 2.0 * double(out_channels) * double(out_size() * out_size()) *
           double(in_channels / group) * double(kernel * kernel);
  }
};

// ResNet-18 (He et al. 2016; torchvision resnet18): every distinct 3x3 and
// 1x1 (downsample) conv after the 7x7 stem. MobileNetV2 (Sandler et al. 2018;
// torchvision mobilenet_v2, width 1.0): every distinct depthwise 3x3 conv of
// the inverted residual blocks (channels = expansion x block input).
const std::vector<Layer> kLayers = {
    {"resnet18-3x3", "layer1 64@56", 64, 64, 56, 3, 1, 1, 1},
    {"resnet18-3x3", "layer2.0 64>128 s2", 64, 128, 56, 3, 2, 1, 1},
    {"resnet18-3x3", "layer2 128@28", 128, 128, 28, 3, 1, 1, 1},
    {"resnet18-3x3", "layer3.0 128>256 s2", 128, 256, 28, 3, 2, 1, 1},
    {"resnet18-3x3", "layer3 256@14", 256, 256, 14, 3, 1, 1, 1},
    {"resnet18-3x3", "layer4.0 256>512 s2", 256, 512, 14, 3, 2, 1, 1},
    {"resnet18-3x3", "layer4 512@7", 512, 512, 7, 3, 1, 1, 1},
    {"resnet18-1x1", "layer2.0 ds 64>128 s2", 64, 128, 56, 1, 2, 0, 1},
    {"resnet18-1x1", "layer3.0 ds 128>256 s2", 128, 256, 28, 1, 2, 0, 1},
    {"resnet18-1x1", "layer4.0 ds 256>512 s2", 256, 512, 14, 1, 2, 0, 1},
    {"mobilenetv2-dw", "dw 32@112", 32, 32, 112, 3, 1, 1, 32},
    {"mobilenetv2-dw", "dw 96@112 s2", 96, 96, 112, 3, 2, 1, 96},
    {"mobilenetv2-dw", "dw 144@56", 144, 144, 56, 3, 1, 1, 144},
    {"mobilenetv2-dw", "dw 144@56 s2", 144, 144, 56, 3, 2, 1, 144},
    {"mobilenetv2-dw", "dw 192@28", 192, 192, 28, 3, 1, 1, 192},
    {"mobilenetv2-dw", "dw 192@28 s2", 192, 192, 28, 3, 2, 1, 192},
    {"mobilenetv2-dw", "dw 384@14", 384, 384, 14, 3, 1, 1, 384},
    {"mobilenetv2-dw", "dw 576@14", 576, 576, 14, 3, 1, 1, 576},
    {"mobilenetv2-dw", "dw 576@14 s2", 576, 576, 14, 3, 2, 1, 576},
    {"mobilenetv2-dw", "dw 960@7", 960, 960, 7, 3, 1, 1, 960},
};

// --quick: small layers of each kind, for the smoke test.
const std::vector<Layer> kQuickLayers = {
    {"3x3", "16>32@14", 16, 32, 14, 3, 1, 1, 1},
    {"3x3", "16>32@14 s2", 16, 32, 14, 3, 2, 1, 1},
    {"1x1", "16>32@14 s2", 16, 32, 14, 1, 2, 0, 1},
    {"grouped", "32@14 g4", 32, 32, 14, 3, 1, 1, 4},
    {"dw", "dw 32@14", 32, 32, 14, 3, 1, 1, 32},
};

struct TircConv {
  std::unique_ptr<JitModule> jit;
  JitModule::PackedFn fn = nullptr;
};

// Whether the layout pass gives this layer's channels-last weights in blocks
// of 16 output channels, [M / 16, C, kh, kw, 16] (ir/onnx/layout.h).
bool blocked_weights(const Layer& l) {
  return onnx::blocks_conv_weights(
      l.group, {l.out_channels, l.in_channels / l.group, l.kernel, l.kernel});
}

// The frontend's kernel for one Conv node with X and W as parameters,
// scheduled for `threads` (as `TIRC_NUM_THREADS=threads tirc compile` does).
TircConv build_tirc(const Layer& l, int threads, bool nhwc) {
  using namespace onnx;
  Graph g;
  g.name = "conv_bench";
  g.opset = 17;
  auto tensor = [&](const std::string& name, Shape shape) {
    g.tensors[name] = TensorInfo{name, DataType::float32(), std::move(shape), true, nullptr};
  };
  const int64_t o = l.out_size(), cg = l.in_channels / l.group;
  tensor("x",
         nhwc ? Shape{1, l.size, l.size, l.in_channels} : Shape{1, l.in_channels, l.size, l.size});
  tensor("w", !nhwc                ? Shape{l.out_channels, cg, l.kernel, l.kernel}
              : blocked_weights(l) ? Shape{l.out_channels / onnx::kWeightsBlock, cg, l.kernel,
                                           l.kernel, onnx::kWeightsBlock}
                                   : Shape{l.kernel, l.kernel, cg, l.out_channels});
  tensor("y", nhwc ? Shape{1, o, o, l.out_channels} : Shape{1, l.out_channels, o, o});
  g.inputs = {"x", "w"};
  g.outputs = {"y"};
  Node n;
  n.name = "conv";
  n.op_type = "Conv";
  if (nhwc) n.domain = std::string(onnx::kChannelsLastDomain);
  n.inputs = {"x", "w"};
  n.outputs = {"y"};
  n.attrs["strides"] = std::vector<int64_t>{l.stride, l.stride};
  n.attrs["pads"] = std::vector<int64_t>{l.pad, l.pad, l.pad, l.pad};
  n.attrs["group"] = l.group;
  g.nodes.push_back(n);
  IRModule mod;
  mod.add("conv", build_group_kernel(g, KernelGroup{{0}}, "conv").func);
  RuleContext cx;
  cx.cpu = host_cpu_model(host_target());
  cx.cpu.threads = threads;
  mod = auto_schedule(mod, cx).schedule.mod();
  GeneratorOptions options;
  options.target = host_target();
  TircConv k;
  k.jit = std::make_unique<JitModule>(generate_x86({{"conv", lower(mod.at("conv"))}}, options));
  k.fn = k.jit->packed("conv");
  return k;
}

// oneDNN's forward-inference convolution in its preferred layouts, with the
// NCHW data reordered in once (construction) and the result out on demand.
class OneDnnConv {
 public:
  OneDnnConv(const Layer& l, float* x, float* w, float* y)
      : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    const int64_t o = l.out_size(), g = l.group;
    dnnl::memory::dims src{1, l.in_channels, l.size, l.size}, dst{1, l.out_channels, o, o};
    dnnl::memory::dims wei = g == 1 ? dnnl::memory::dims{l.out_channels, l.in_channels, l.kernel,
                                                         l.kernel}
                                    : dnnl::memory::dims{g, l.out_channels / g, l.in_channels / g,
                                                         l.kernel, l.kernel};
    dnnl::memory::desc src_any(src, dt::f32, tag::any), wei_any(wei, dt::f32, tag::any),
        dst_any(dst, dt::f32, tag::any);
    dnnl::convolution_forward::desc d(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any, wei_any,
        dst_any, {l.stride, l.stride}, {0, 0}, {l.pad, l.pad}, {l.pad, l.pad});
    dnnl::convolution_forward::primitive_desc pd(d, engine_);
    prim_ = dnnl::convolution_forward(pd);
    dnnl::memory src_user({src, dt::f32, tag::nchw}, engine_, x);
    dnnl::memory wei_user({wei, dt::f32, g == 1 ? tag::oihw : tag::goihw}, engine_, w);
    dst_user_ = dnnl::memory({dst, dt::f32, tag::nchw}, engine_, y);
    src_ = dnnl::memory(pd.src_desc(), engine_);
    wei_ = dnnl::memory(pd.weights_desc(), engine_);
    dst_ = dnnl::memory(pd.dst_desc(), engine_);
    dnnl::reorder(src_user, src_).execute(stream_, src_user, src_);
    dnnl::reorder(wei_user, wei_).execute(stream_, wei_user, wei_);
    stream_.wait();
    impl_ = pd.impl_info_str();
  }
  void run() {
    prim_.execute(stream_, {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, wei_}, {DNNL_ARG_DST, dst_}});
    stream_.wait();
  }
  // The last result in NCHW, in the y given to the constructor.
  void fetch() {
    dnnl::reorder(dst_, dst_user_).execute(stream_, dst_, dst_user_);
    stream_.wait();
  }
  const std::string& impl() const { return impl_; }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::convolution_forward prim_;
  dnnl::memory src_, wei_, dst_, dst_user_;
  std::string impl_;
};

double relative_error(const std::vector<float>& x, const std::vector<float>& ref) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::fabs(double(x[i]) - ref[i]));
    scale = std::max(scale, std::fabs(double(ref[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

std::string fmt(double v, const char* f = "%.1f") {
  if (std::isnan(v)) return "WRONG";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// `from` as [a, rest] row-major, transposed to [rest, a].
std::vector<float> first_axis_last(const std::vector<float>& from, int64_t a) {
  const int64_t rest = int64_t(from.size()) / a;
  std::vector<float> to(from.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < rest; ++j) to[size_t(j * a + i)] = from[size_t(i * rest + j)];
  return to;
}

struct Row {
  const Layer* layer;
  bool nhwc;
  int threads;
  double tirc, onednn;  // GFLOPS; NaN when wrong
};

int run(bool quick, const std::vector<int>& threads, const std::vector<bool>& layouts) {
  const dnnl_version_t* v = dnnl_version();
  std::printf(
      "# oneDNN %d.%d.%d (%s runtime), layouts: oneDNN's preferred (reorders untimed); "
      "tirc: NCHW and/or NHWC (transposes untimed), default schedule for %s at each thread "
      "count\n",
      v->major, v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other",
      host_target().name().c_str());
  const Budget budget = quick ? Budget{3, 0.01, 0.5} : Budget{20, 0.3, 3.0};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<Row> rows;
  bool all_correct = true;
  for (const Layer& l : quick ? kQuickLayers : kLayers) {
    const int64_t o = l.out_size();
    std::vector<float> x(size_t(l.in_channels * l.size * l.size));
    std::vector<float> w(size_t(l.out_channels * (l.in_channels / l.group) * l.kernel * l.kernel));
    std::vector<float> y(size_t(l.out_channels * o * o)), ref(y.size());
    for (float& e : x) e = uniform(rng);
    for (float& e : w) e = uniform(rng);
    // Channels-last operands: x [H, W, C] from [C, H, W]; w [kh, kw, C/g, M]
    // or [M / 16, C, kh, kw, 16] from [M, C/g, kh, kw].
    const std::vector<float> xl = first_axis_last(x, l.in_channels);
    std::vector<float> wl(w.size());
    const int64_t kk = l.kernel * l.kernel, cg = l.in_channels / l.group, b = onnx::kWeightsBlock;
    for (int64_t m = 0; m < l.out_channels; ++m)
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t k = 0; k < kk; ++k)
          wl[size_t(blocked_weights(l) ? (((m / b * cg + c) * kk + k) * b + m % b)
                                       : ((k * cg + c) * l.out_channels + m))] =
              w[size_t((m * cg + c) * kk + k)];
    std::vector<float> yl(y.size());
    for (int t : threads)
      for (bool nhwc : layouts) {
        TircConv tirc = build_tirc(l, t, nhwc);
        void* args[] = {nhwc ? (void*)xl.data() : (void*)x.data(),
                        nhwc ? (void*)wl.data() : (void*)w.data(),
                        nhwc ? (void*)yl.data() : (void*)y.data()};
        tirc_set_num_threads(t);
        omp_set_num_threads(t);
        // oneDNN fixes its thread count when the primitive is made: one per count.
        OneDnnConv dnnl_conv(l, x.data(), w.data(), ref.data());
        dnnl_conv.run();
        dnnl_conv.fetch();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::fill(y.begin(), y.end(), std::numeric_limits<float>::quiet_NaN());
        std::fill(yl.begin(), yl.end(), std::numeric_limits<float>::quiet_NaN());
        tirc.fn(args);
        if (nhwc) y = first_axis_last(yl, o * o);  // [OH * OW, M] -> [M, OH * OW]
        Row r{&l, nhwc, t, std::numeric_limits<double>::quiet_NaN(), 0};
        // A pause before each timing: the other runtime's idle workers (tirc's
        // pool, OpenMP's) may still spin on the same cores.
        auto gflops = [&](const std::function<void()>& call) {
          std::this_thread::sleep_for(std::chrono::milliseconds(250));
          return l.flops() / best_seconds(call, budget) * 1e-9;
        };
        if (relative_error(y, ref) <= 1e-4)
          r.tirc = gflops([&] { tirc.fn(args); });
        else
          all_correct = false;
        r.onednn = gflops([&] { dnnl_conv.run(); });
        rows.push_back(r);
        std::printf("%-16s %-24s %s thr %d  tirc %8s  onednn %8s  ratio %6s  (%s)\n", l.family,
                    l.name, nhwc ? "nhwc" : "nchw", t, fmt(r.tirc).c_str(), fmt(r.onednn).c_str(),
                    fmt(r.tirc / r.onednn, "%.3f").c_str(), dnnl_conv.impl().c_str());
        std::fflush(stdout);
      }
  }
  std::printf("\ngeomean of tirc / oneDNN per layer family\n");
  std::map<std::tuple<std::string, bool, int>, std::pair<double, int>> sums;
  for (const Row& r : rows) {
    auto& s = sums[{r.layer->family, r.nhwc, r.threads}];
    s.first += std::log(r.tirc / r.onednn);
    ++s.second;
  }
  for (const auto& [key, s] : sums)
    std::printf("%-16s %s thr %d  %d layers  %s\n", std::get<0>(key).c_str(),
                std::get<1>(key) ? "nhwc" : "nchw", std::get<2>(key), s.second,
                fmt(std::exp(s.first / s.second), "%.3f").c_str());
  if (!all_correct) std::fprintf(stderr, "error: some kernels computed wrong results (WRONG)\n");
  return all_correct ? 0 : 1;
}

}  // namespace
}  // namespace tirc::bench

int main(int argc, char** argv) {
  bool quick = false;
  std::vector<int> threads{1, 2};
  std::vector<bool> layouts{false, true};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--threads" && i + 1 < argc) {
      threads.clear();
      for (const char* p = argv[++i]; *p;) {
        char* end = nullptr;
        long t = std::strtol(p, &end, 10);
        if (end == p || t < 1) {
          std::fprintf(stderr, "--threads expects a comma-separated list of positive counts\n");
          return 2;
        }
        threads.push_back(int(t));
        p = *end == ',' ? end + 1 : end;
      }
    } else if (a == "--layout" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v != "nchw" && v != "nhwc" && v != "both") {
        std::fprintf(stderr, "--layout expects nchw, nhwc or both\n");
        return 2;
      }
      layouts = v == "both" ? std::vector<bool>{false, true} : std::vector<bool>{v == "nhwc"};
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--threads 1,2] [--layout nchw|nhwc|both]\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    return tirc::bench::run(quick, threads, layouts);
  } catch (const tirc::Error& e) {
    std::fprintf(stderr, "%s\n", e.render().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
