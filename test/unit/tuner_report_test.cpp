// `tirc tune`'s report: the HTML page is well formed, escapes what it shows,
// draws each curve as a step line with finite coordinates, and the terminal
// table reads exactly as pinned.
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "tuner/report.h"

using namespace tirc;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

KernelTuneSummary kernel(std::string name, double def, double tuned, int trials, double seconds,
                         std::vector<TuneCurvePoint> curve) {
  KernelTuneSummary k;
  k.kernel = std::move(name);
  k.default_gflops = def;
  k.tuned_gflops = tuned;
  k.default_seconds = def > 0 ? 1e-3 / def : 0;
  k.tuned_seconds = tuned > 0 ? 1e-3 / tuned : 0;
  k.trials = trials;
  k.tune_seconds = seconds;
  k.strategy = "beam";
  k.curve = std::move(curve);
  return k;
}

// Three ordinary kernels, one with an awkward name and no curve, one with a
// single point, one whose figures are NaN and infinite.
std::vector<KernelTuneSummary> sample() {
  return {
      kernel("conv2d_add_relu", 12.5, 40.0, 120, 10.0, {{0, 12.5}, {1.5, 20.0}, {4.0, 40.0}}),
      kernel("<a&b>", 0, 5.0, 0, 2.0, {}),
      kernel("matmul", 100.0, 150.0, 7, 3.3, {{0.5, 150.0}}),
      kernel("broken", kNaN, kInf, 3, kNaN, {{kNaN, 1.0}, {1.0, kInf}, {2.0, 8.0}, {-1.0, 2.0}}),
  };
}

std::string report(const std::vector<KernelTuneSummary>& kernels) {
  std::ostringstream os;
  write_tune_report(os, "model<1>.onnx", "x86-64 avx512 \"Xeon\" & co", kernels);
  return os.str();
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The text of each tag (between '<' and '>'), comments and doctype left out.
// Written by hand: <regex> warns falsely (-Wmaybe-uninitialized) in GCC 12's
// sanitizer build.
std::vector<std::string> tags(const std::string& html) {
  std::vector<std::string> out;
  for (size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    const size_t end = html.find('>', at);
    REQUIRE(end != std::string::npos);
    if (html[at + 1] != '!') out.push_back(html.substr(at + 1, end - at - 1));
    at = end;
  }
  return out;
}

std::string tag_name(const std::string& tag) {
  size_t i = tag[0] == '/' ? 1 : 0, j = i;
  while (j < tag.size() && std::isalnum(static_cast<unsigned char>(tag[j]))) ++j;
  return tag.substr(i, j - i);
}

// The value of attribute `name` in a tag ("" when absent).
std::string attribute(const std::string& tag, const std::string& name) {
  const size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  const size_t begin = at + name.size() + 3;
  return tag.substr(begin, tag.find('"', begin) - begin);
}

// Every element opened is closed in order, except void ones and "<x .../>".
void check_balanced(const std::string& html) {
  std::vector<std::string> open;
  for (const std::string& tag : tags(html)) {
    const std::string name = tag_name(tag);
    REQUIRE(!name.empty());
    if (tag.back() == '/' || name == "meta") continue;
    if (tag[0] != '/') {
      open.push_back(name);
      continue;
    }
    INFO("closing </" << name << ">");
    REQUIRE(!open.empty());
    CHECK(open.back() == name);
    open.pop_back();
  }
  CHECK(open.empty());
}

// The points of every polyline, in order.
std::vector<std::vector<std::pair<double, double>>> polylines(const std::string& html) {
  std::vector<std::vector<std::pair<double, double>>> all;
  for (const std::string& tag : tags(html)) {
    if (tag_name(tag) != "polyline") continue;
    std::istringstream in(attribute(tag, "points"));
    std::vector<std::pair<double, double>> pts;
    double x, y;
    char comma;
    while (in >> x >> comma >> y) pts.push_back({x, y});
    all.push_back(pts);
  }
  return all;
}

}  // namespace

TEST_CASE("the tuning curve is a step line over the valid points", "[report]") {
  const std::vector<KernelTuneSummary> k = sample();
  using P = std::vector<std::pair<double, double>>;
  auto steps = [](const KernelTuneSummary& s) {
    P out;
    for (const TuneCurvePoint& p : tune_curve_steps(s)) out.push_back({p.seconds, p.best_gflops});
    return out;
  };
  CHECK(steps(k[0]) == P{{0, 12.5}, {1.5, 12.5}, {1.5, 20}, {4, 20}, {4, 40}, {10, 40}});
  CHECK(steps(k[1]).empty());
  CHECK(steps(k[2]) == P{{0.5, 150}, {3.3, 150}});
  CHECK(steps(k[3]) == P{{2, 8}});  // NaN, infinite and negative points left out
}

TEST_CASE("the report page is self-contained, escaped and well formed", "[report]") {
  const std::vector<KernelTuneSummary> kernels = sample();
  const std::string html = report(kernels);
  INFO(html);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(html, "<svg") == kernels.size());
  CHECK(count(html, "</svg>") == kernels.size());
  check_balanced(html);
  // No external resources.
  CHECK(count(html, "<script") == 0);
  CHECK(count(html, "<link") == 0);
  CHECK(count(html, "src=") == 0);
  // Escaped names, title and subtitle; never raw.
  CHECK(count(html, "&lt;a&amp;b&gt;") == 2);  // plot title and table row
  CHECK(count(html, "<a&b>") == 0);
  CHECK(count(html, "model&lt;1&gt;.onnx") == 2);
  CHECK(count(html, "x86-64 avx512 &quot;Xeon&quot; &amp; co") == 1);
  CHECK(count(html, "no measurements") == 1);
  // No non-finite number anywhere.
  CHECK(count(html, "nan") == 0);
  CHECK(count(html, "inf") == 0);
  CHECK(count(html, "NaN") == 0);
  CHECK(count(html, "Inf") == 0);
  // A colour per kernel, each different.
  CHECK(count(html, "#4e79a7") >= 2);  // the first kernel's line and swatch
  CHECK(count(html, "#f28e2b") >= 1);
  CHECK(count(html, "#e15759") >= 2);
}

TEST_CASE("each polyline has the curve's vertices, increasing in x", "[report]") {
  const std::vector<KernelTuneSummary> kernels = sample();
  const auto lines = polylines(report(kernels));
  std::vector<size_t> expected;
  for (const KernelTuneSummary& k : kernels)
    if (size_t n = tune_curve_steps(k).size()) expected.push_back(n);
  REQUIRE(lines.size() == expected.size());
  CHECK(expected == std::vector<size_t>{6, 2, 1});
  for (size_t i = 0; i < lines.size(); ++i) {
    REQUIRE(lines[i].size() == expected[i]);
    for (size_t j = 1; j < lines[i].size(); ++j) {
      CHECK(lines[i][j].first >= lines[i][j - 1].first);
      // Best so far: never lower on the page (SVG y grows downwards).
      CHECK(lines[i][j].second <= lines[i][j - 1].second);
    }
    for (const auto& [x, y] : lines[i]) {
      CHECK(std::isfinite(x));
      CHECK(std::isfinite(y));
    }
  }
  // The first curve starts on the y axis and ends at the right edge.
  CHECK(lines[0].front().first == 56.0);
  CHECK(lines[0].back().first == 366.0);
}

TEST_CASE("twenty kernels get twenty plots with distinct colours", "[report]") {
  std::vector<KernelTuneSummary> kernels;
  for (int i = 0; i < 20; ++i) {
    std::string name = "k";
    name += std::to_string(i);  // appending: GCC 12 warns falsely on "k" + string (-Wrestrict)
    kernels.push_back(kernel(name, 10 + i, 20 + i, 5, 1.0, {{0.1, 10.0 + i}, {0.6, 20.0 + i}}));
  }
  const std::string html = report(kernels);
  CHECK(count(html, "<svg") == 20);
  CHECK(polylines(html).size() == 20);
  check_balanced(html);
  std::set<std::string> strokes;
  for (const std::string& tag : tags(html))
    if (tag_name(tag) == "polyline") strokes.insert(attribute(tag, "stroke"));
  CHECK(strokes.size() == 20);
}

TEST_CASE("an empty report still makes a page", "[report]") {
  const std::string html = report({});
  CHECK(count(html, "<svg") == 0);
  check_balanced(html);
  CHECK(count(html, "nan") == 0);
}

TEST_CASE("the terminal table is exact", "[report]") {
  std::ostringstream os;
  print_tune_table(os, sample());
  CHECK(os.str() ==
        "kernel           default GFLOPS  tuned GFLOPS  speedup  trials      time\n"
        "conv2d_add_relu            12.5          40.0    3.20x     120     10.0s\n"
        "<a&b>                         -           5.0        -       0      2.0s\n"
        "matmul                    100.0         150.0    1.50x       7      3.3s\n"
        "broken                        -             -        -       3      0.0s\n"
        "total (geomean)                                  2.19x     130     15.3s\n");
}

TEST_CASE("the training report plots negative mean returns below a zero line", "[report]") {
  // From the rules' schedule most moves lose: mean returns are negative.
  const std::vector<TrainingCurvePoint> curve = {
      {180, 600, -0.28, 0.70}, {360, 1100, -0.14, 0.75}, {540, 1600, -0.20, 0.89}};
  std::ostringstream os;
  write_training_report(os, "looptune", "sub", curve,
                        {{"mm_64_64_64", 0.7, 250.0, 255.0, "shrink_tile_0"}});
  const std::string html = os.str();
  check_balanced(html);
  CHECK(count(html, "no points") == 0);
  const auto lines = polylines(html);
  REQUIRE(lines.size() == 2);  // mean return, validation speedup
  REQUIRE(lines[0].size() == 3);
  REQUIRE(lines[1].size() == 3);
  // SVG y grows downwards: -0.14 is drawn above -0.20, which is above -0.28,
  // and every return lies inside the plot (top 34, bottom 188).
  CHECK(lines[0][1].second < lines[0][2].second);
  CHECK(lines[0][2].second < lines[0][0].second);
  for (const auto& [x, y] : lines[0]) {
    CHECK(y >= 34.0);
    CHECK(y <= 188.0);
  }
  // The return axis runs from -0.3 up to 0 in steps of 0.1 (the speedup's
  // from 0 up: one 0.0 tick each).
  CHECK(count(html, "text-anchor=\"end\">-0.3</text>") == 1);
  CHECK(count(html, "text-anchor=\"end\">-0.1</text>") == 1);
  CHECK(count(html, "text-anchor=\"end\">0.0</text>") == 2);
}
