// The LibTorch side of the Q-network (tuner/policy/q_network.h), built as
// the module libtirc_torch.so that q_network.cpp loads on first use. It
// holds no tirc code but this file and ir/error.cpp (its errors are
// tirc::Error), and exports two C entry points at the end.
#include <dlfcn.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "ir/error.h"
#include "tuner/policy/q_network.h"

namespace tirc {

namespace {

// The file's first key: what it is and the version of its layout.
constexpr const char* kFormat = "tirc-loop-policy 1";

// The small matrices here run fastest on the calling thread; LibTorch's
// intra-op pool would only add hand-offs (and fight the measured kernels
// for cores). The BLAS under it (Debian's LibTorch uses OpenBLAS) keeps its
// own pool, which torch::set_num_threads leaves alone; it must run inline
// too, because OpenBLAS's fork handler deadlocks when a thread forks (a
// tuner measurement) while another is inside a threaded BLAS call.
void use_one_thread() {
  if (torch::get_num_threads() != 1) torch::set_num_threads(1);
  for (const char* lib : {"libopenblas.so.0", "libblas.so.3"})
    if (void* h = ::dlopen(lib, RTLD_LAZY | RTLD_NOLOAD)) {
      using SetThreads = void (*)(int);
      if (auto set = reinterpret_cast<SetThreads>(::dlsym(h, "openblas_set_num_threads"))) set(1);
      ::dlclose(h);
    }
}

// Names are stored comma-joined (actions and counter names have no commas);
// q_network.cpp joins them the same way for its messages.
std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size() && !s.empty()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace

class TorchQNetwork final : public QNetwork {
 public:
  TorchQNetwork(QNetworkShape shape, uint64_t seed, int episode_length);

  const QNetworkShape& shape() const override { return shape_; }
  int episode_length() const override { return episode_length_; }
  std::vector<float> q_batch(const std::vector<float>& observations, int n) const override;
  std::vector<float> learn(const LearnBatch& b, const QNetwork& target, double gamma,
                           double learning_rate, double* loss) override;
  void copy_weights(const QNetwork& other) override;
  float weight_distance(const QNetwork& other) const override;
  void save(const std::string& path, const PolicyInfo& info) const override;
  void save_checkpoint(const std::string& path, const QNetwork& target,
                       const std::vector<std::pair<std::string, double>>& numbers,
                       const std::vector<double>& series) const override;
  void load_checkpoint(const std::string& path, QNetwork& target,
                       std::vector<std::pair<std::string, double>>* numbers,
                       std::vector<double>* series) override;

  static std::unique_ptr<TorchQNetwork> load(const std::string& path, PolicyInfo* info);

 private:
  struct Impl;
  // Every QNetwork this module makes is a TorchQNetwork.
  static const TorchQNetwork& of(const QNetwork& n) { return static_cast<const TorchQNetwork&>(n); }
  static TorchQNetwork& of(QNetwork& n) { return static_cast<TorchQNetwork&>(n); }

  QNetworkShape shape_;
  int episode_length_;
  std::shared_ptr<Impl> impl_;
};

struct TorchQNetwork::Impl {
  torch::nn::Sequential net;
  std::unique_ptr<torch::optim::Adam> optimizer;
  double learning_rate = 0;

  torch::optim::Adam& adam(double lr) {
    if (!optimizer)
      optimizer =
          std::make_unique<torch::optim::Adam>(net->parameters(), torch::optim::AdamOptions(lr));
    if (lr != learning_rate)
      for (auto& group : optimizer->param_groups())
        static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
    learning_rate = lr;
    return *optimizer;
  }

  void write_weights(torch::serialize::OutputArchive& a) const {
    for (const auto& p : net->named_parameters()) a.write(p.key(), p.value());
  }
  void read_weights(torch::serialize::InputArchive& a) {
    torch::NoGradGuard no_grad;
    for (auto& p : net->named_parameters()) {
      torch::Tensor t;
      a.read(p.key(), t);
      if (t.sizes() != p.value().sizes())
        throw Error("the policy's layer " + p.key() + " has another shape than expected");
      p.value().copy_(t);
    }
  }
};

TorchQNetwork::TorchQNetwork(QNetworkShape shape, uint64_t seed, int episode_length)
    : shape_(std::move(shape)), episode_length_(episode_length), impl_(std::make_shared<Impl>()) {
  use_one_thread();
  if (shape_.inputs <= 0 || shape_.actions <= 0)
    throw Error("a Q-network needs inputs and actions");
  int width = shape_.inputs;
  for (int h : shape_.hidden) {
    if (h <= 0) throw Error("a Q-network's hidden layers need a positive width");
    impl_->net->push_back(torch::nn::Linear(width, h));
    impl_->net->push_back(torch::nn::ReLU());
    width = h;
  }
  impl_->net->push_back(torch::nn::Linear(width, shape_.actions));

  // He-uniform weights from our own generator (53-bit uniforms, the same on
  // every standard library), so a seed means the same network everywhere.
  std::mt19937_64 rng(seed);
  torch::NoGradGuard no_grad;
  for (auto& p : impl_->net->named_parameters()) {
    torch::Tensor t = p.value();
    if (t.dim() == 1) {
      t.zero_();
      continue;
    }
    const double bound = std::sqrt(6.0 / static_cast<double>(t.size(1)));
    std::vector<float> values(static_cast<size_t>(t.numel()));
    for (float& v : values)
      v = static_cast<float>((static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2 - 1) * bound);
    t.copy_(torch::from_blob(values.data(), t.sizes(), torch::kFloat32));
  }
}

std::vector<float> TorchQNetwork::q_batch(const std::vector<float>& observations, int n) const {
  if (static_cast<int64_t>(observations.size()) != int64_t{n} * shape_.inputs)
    throw Error("a Q-network of " + std::to_string(shape_.inputs) + " inputs was given " +
                std::to_string(observations.size()) + " floats for " + std::to_string(n) +
                " observations");
  torch::InferenceMode guard;
  torch::Tensor x = torch::from_blob(const_cast<float*>(observations.data()), {n, shape_.inputs},
                                     torch::kFloat32);
  torch::Tensor q = impl_->net->forward(x).contiguous();
  return std::vector<float>(q.data_ptr<float>(), q.data_ptr<float>() + q.numel());
}

std::vector<float> TorchQNetwork::learn(const LearnBatch& b, const QNetwork& target, double gamma,
                                        double learning_rate, double* loss) {
  const int64_t n = b.n, in = shape_.inputs, na = shape_.actions;
  auto tensor = [](const auto& v, std::initializer_list<int64_t> sizes, torch::Dtype type) {
    return torch::from_blob(const_cast<void*>(static_cast<const void*>(v.data())), sizes, type)
        .clone();
  };
  torch::Tensor obs = tensor(b.obs, {n, in}, torch::kFloat32);
  torch::Tensor next = tensor(b.next_obs, {n, in}, torch::kFloat32);
  torch::Tensor actions = tensor(b.actions, {n, 1}, torch::kInt64);
  torch::Tensor rewards = tensor(b.rewards, {n}, torch::kFloat32);
  torch::Tensor done = tensor(b.done, {n}, torch::kFloat32);
  torch::Tensor weights = tensor(b.weights, {n}, torch::kFloat32);
  torch::Tensor legal = tensor(b.next_legal, {n, na}, torch::kUInt8).to(torch::kBool);

  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    // Double DQN: this network picks the next action, the target values it.
    torch::Tensor next_online =
        impl_->net->forward(next).masked_fill(legal.logical_not(), -INFINITY);
    torch::Tensor pick = next_online.argmax(1, /*keepdim=*/true);
    torch::Tensor next_value = of(target).impl_->net->forward(next).gather(1, pick).squeeze(1);
    torch::Tensor live = legal.any(1).to(torch::kFloat32) * (1 - done);
    y = rewards + static_cast<float>(gamma) * live * next_value;
  }
  torch::Tensor q = impl_->net->forward(obs).gather(1, actions).squeeze(1);
  torch::Tensor per_sample = torch::nn::functional::huber_loss(
      q, y, torch::nn::functional::HuberLossFuncOptions().reduction(torch::kNone));
  torch::Tensor l = (weights * per_sample).mean();
  torch::optim::Adam& adam = impl_->adam(learning_rate);
  adam.zero_grad();
  l.backward();
  torch::nn::utils::clip_grad_norm_(impl_->net->parameters(), 10.0);
  adam.step();
  if (loss) *loss = l.item<double>();
  torch::Tensor td = (q.detach() - y).abs().contiguous();
  return std::vector<float>(td.data_ptr<float>(), td.data_ptr<float>() + n);
}

void TorchQNetwork::copy_weights(const QNetwork& other) {
  if (!(other.shape() == shape_)) throw Error("copy_weights between Q-networks of other shapes");
  torch::NoGradGuard no_grad;
  auto mine = impl_->net->parameters();
  auto theirs = of(other).impl_->net->parameters();
  for (size_t i = 0; i < mine.size(); ++i) mine[i].copy_(theirs[i]);
}

float TorchQNetwork::weight_distance(const QNetwork& other) const {
  torch::NoGradGuard no_grad;
  auto mine = impl_->net->parameters();
  auto theirs = of(other).impl_->net->parameters();
  float d = 0;
  for (size_t i = 0; i < mine.size() && i < theirs.size(); ++i)
    d = std::max(d, (mine[i] - theirs[i]).abs().max().item<float>());
  return d;
}

namespace {

void write_shape(torch::serialize::OutputArchive& a, const QNetworkShape& s, int episode_length) {
  a.write("format", c10::IValue(std::string(kFormat)));
  a.write("inputs", c10::IValue(int64_t{s.inputs}));
  a.write("actions", c10::IValue(int64_t{s.actions}));
  std::vector<int64_t> hidden(s.hidden.begin(), s.hidden.end());
  a.write("hidden", c10::IValue(hidden));
  a.write("episode_length", c10::IValue(int64_t{episode_length}));
}

QNetworkShape read_shape(torch::serialize::InputArchive& a, const std::string& path,
                         int* episode_length) {
  c10::IValue v;
  if (!a.try_read("format", v) || !v.isString() || v.toStringRef() != kFormat)
    throw Error("'" + path + "' is not a tirc loop policy (" + kFormat + ")");
  QNetworkShape s;
  a.read("inputs", v);
  s.inputs = static_cast<int>(v.toInt());
  a.read("actions", v);
  s.actions = static_cast<int>(v.toInt());
  a.read("hidden", v);
  for (int64_t h : v.toIntVector()) s.hidden.push_back(static_cast<int>(h));
  a.read("episode_length", v);
  *episode_length = static_cast<int>(v.toInt());
  return s;
}

}  // namespace

void TorchQNetwork::save(const std::string& path, const PolicyInfo& info) const {
  try {
    torch::serialize::OutputArchive a;
    write_shape(a, shape_, episode_length_);
    a.write("action_names", c10::IValue(join(info.actions)));
    a.write("target", c10::IValue(info.target));
    a.write("command", c10::IValue(info.command));
    a.write("seed", c10::IValue(static_cast<int64_t>(info.seed)));
    a.write("episodes", c10::IValue(info.episodes));
    torch::serialize::OutputArchive weights;
    impl_->write_weights(weights);
    a.write("weights", weights);
    a.save_to(path);
  } catch (const c10::Error& e) {
    throw Error("cannot write the policy '" + path + "': " + e.what_without_backtrace());
  }
}

// Reached only through load_q_network, which has checked that the file exists.
std::unique_ptr<TorchQNetwork> TorchQNetwork::load(const std::string& path, PolicyInfo* info) {
  try {
    torch::serialize::InputArchive a;
    a.load_from(path);
    int episode_length = 0;
    QNetworkShape shape = read_shape(a, path, &episode_length);
    c10::IValue v;
    a.read("action_names", v);
    PolicyInfo pi;
    pi.actions = split(v.toStringRef());
    pi.episode_length = episode_length;
    a.read("target", v);
    pi.target = v.toStringRef();
    a.read("command", v);
    pi.command = v.toStringRef();
    a.read("seed", v);
    pi.seed = static_cast<uint64_t>(v.toInt());
    a.read("episodes", v);
    pi.episodes = v.toInt();
    auto net = std::make_unique<TorchQNetwork>(shape, 0, episode_length);
    torch::serialize::InputArchive weights;
    a.read("weights", weights);
    net->impl_->read_weights(weights);
    if (info) *info = std::move(pi);
    return net;
  } catch (const c10::Error& e) {
    throw Error("cannot read the policy '" + path + "': " + e.what_without_backtrace());
  }
}

void TorchQNetwork::save_checkpoint(const std::string& path, const QNetwork& target,
                                    const std::vector<std::pair<std::string, double>>& numbers,
                                    const std::vector<double>& series) const {
  try {
    torch::serialize::OutputArchive a;
    write_shape(a, shape_, episode_length_);
    torch::serialize::OutputArchive online, tgt, adam;
    impl_->write_weights(online);
    of(target).impl_->write_weights(tgt);
    a.write("online", online);
    a.write("target", tgt);
    a.write("has_optimizer", c10::IValue(impl_->optimizer != nullptr));
    if (impl_->optimizer) {
      impl_->optimizer->save(adam);
      a.write("optimizer", adam);
      a.write("learning_rate", c10::IValue(impl_->learning_rate));
    }
    std::vector<std::string> names;
    std::vector<double> values;
    for (const auto& [k, v] : numbers) {
      names.push_back(k);
      values.push_back(v);
    }
    a.write("number_names", c10::IValue(join(names)));
    a.write("numbers", c10::IValue(values));
    a.write("series", c10::IValue(series));
    // Written next to the file, then renamed over it: a checkpoint is whole
    // or absent, never half written.
    const std::string partial = path + ".partial";
    a.save_to(partial);
    std::filesystem::rename(partial, path);
  } catch (const c10::Error& e) {
    throw Error("cannot write the checkpoint '" + path + "': " + e.what_without_backtrace());
  } catch (const std::filesystem::filesystem_error& e) {
    throw Error("cannot write the checkpoint '" + path + "': " + e.what());
  }
}

void TorchQNetwork::load_checkpoint(const std::string& path, QNetwork& target,
                                    std::vector<std::pair<std::string, double>>* numbers,
                                    std::vector<double>* series) {
  if (!std::filesystem::is_regular_file(path))
    throw Error("the checkpoint '" + path + "' does not exist");
  try {
    torch::serialize::InputArchive a;
    a.load_from(path);
    int episode_length = 0;
    QNetworkShape shape = read_shape(a, path, &episode_length);
    if (!(shape == shape_) || !(target.shape() == shape_))
      throw Error("the checkpoint '" + path + "' holds a network of another shape");
    torch::serialize::InputArchive online, tgt;
    a.read("online", online);
    a.read("target", tgt);
    impl_->read_weights(online);
    of(target).impl_->read_weights(tgt);
    c10::IValue v;
    a.read("has_optimizer", v);
    if (v.toBool()) {
      a.read("learning_rate", v);
      torch::serialize::InputArchive adam;
      a.read("optimizer", adam);
      impl_->adam(v.toDouble()).load(adam);
    }
    a.read("number_names", v);
    std::vector<std::string> names = split(v.toStringRef());
    a.read("numbers", v);
    std::vector<double> values = v.toDoubleVector();
    if (numbers) {
      numbers->clear();
      for (size_t i = 0; i < names.size() && i < values.size(); ++i)
        numbers->emplace_back(names[i], values[i]);
    }
    a.read("series", v);
    if (series) *series = v.toDoubleVector();
  } catch (const c10::Error& e) {
    throw Error("cannot read the checkpoint '" + path + "': " + e.what_without_backtrace());
  }
}

}  // namespace tirc

// The module's entry points (q_network.cpp looks them up by name).
extern "C" tirc::QNetwork* tirc_torch_make_q_network(const tirc::QNetworkShape* shape,
                                                     uint64_t seed, int episode_length) {
  return new tirc::TorchQNetwork(*shape, seed, episode_length);
}

extern "C" tirc::QNetwork* tirc_torch_load_q_network(const char* path, tirc::PolicyInfo* info) {
  return tirc::TorchQNetwork::load(path, info).release();
}
