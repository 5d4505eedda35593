#include "tuner/cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ir/error.h"

namespace tirc {

namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw Error(std::string("cost model: ") + what + ": " + XGBGetLastError());
}

// A dense matrix in XGBoost's form, freed with it.
struct Matrix {
  DMatrixHandle h = nullptr;
  Matrix(const std::vector<std::vector<float>>& rows) {
    const size_t cols = rows.empty() ? 0 : rows[0].size();
    std::vector<float> flat;
    flat.reserve(rows.size() * cols);
    for (const std::vector<float>& r : rows) {
      if (r.size() != cols) throw Error("cost model: feature vectors of different lengths");
      flat.insert(flat.end(), r.begin(), r.end());
    }
    check(XGDMatrixCreateFromMat(flat.data(), rows.size(), cols, NAN, &h), "matrix");
  }
  ~Matrix() {
    if (h) XGDMatrixFree(h);
  }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
};

}  // namespace

struct CostModel::Impl {
  std::vector<std::vector<float>> features;
  std::vector<double> seconds;
  BoosterHandle booster = nullptr;
  ~Impl() {
    if (booster) XGBoosterFree(booster);
  }
};

CostModel::CostModel() : impl_(std::make_unique<Impl>()) {}
CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

void CostModel::add(std::vector<float> features, double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) return;
  impl_->features.push_back(std::move(features));
  impl_->seconds.push_back(seconds);
}

size_t CostModel::size() const {
  return impl_->seconds.size();
}
bool CostModel::trained() const {
  return impl_->booster != nullptr;
}

void CostModel::train() {
  Impl& m = *impl_;
  if (m.seconds.size() < 2) return;
  // Labels: log throughput relative to the fastest, so the scale does not
  // depend on the kernel's size (0 for the best, negative for slower ones).
  const double best = *std::min_element(m.seconds.begin(), m.seconds.end());
  std::vector<float> labels;
  for (double s : m.seconds) labels.push_back(static_cast<float>(std::log(best / s)));
  Matrix train(m.features);
  check(XGDMatrixSetFloatInfo(train.h, "label", labels.data(), labels.size()), "labels");
  BoosterHandle booster = nullptr;
  check(XGBoosterCreate(&train.h, 1, &booster), "create");
  // Small and deterministic: one thread (the measurements own the cores),
  // shallow trees, few rounds.
  const std::pair<const char*, const char*> params[] = {{"objective", "reg:squarederror"},
                                                        {"max_depth", "6"},
                                                        {"eta", "0.2"},
                                                        {"min_child_weight", "1"},
                                                        {"nthread", "1"},
                                                        {"verbosity", "0"},
                                                        {"seed", "0"}};
  try {
    for (auto [k, v] : params) check(XGBoosterSetParam(booster, k, v), "parameter");
    for (int round = 0; round < 40; ++round)
      check(XGBoosterUpdateOneIter(booster, round, train.h), "training");
  } catch (...) {
    XGBoosterFree(booster);
    throw;
  }
  if (m.booster) XGBoosterFree(m.booster);
  m.booster = booster;
}

std::vector<double> CostModel::predict(const std::vector<std::vector<float>>& features) const {
  std::vector<double> out(features.size(), 0.0);
  if (!impl_->booster || features.empty()) return out;
  Matrix x(features);
  bst_ulong n = 0;
  const float* result = nullptr;
  check(XGBoosterPredict(impl_->booster, x.h, 0, 0, 0, &n, &result), "prediction");
  for (size_t i = 0; i < out.size() && i < n; ++i) out[i] = result[i];
  return out;
}

}  // namespace tirc
