#include "tuner/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace tirc {
namespace {

bool positive(double v) {
  return std::isfinite(v) && v > 0;
}
double nonnegative(double v) {
  return positive(v) ? v : 0;
}

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// A figure for the tables: "-" when it is missing, so a failed measurement
// never prints as "nan" or "inf".
std::string figure(double v, const char* fmt) {
  return positive(v) ? format(fmt, v) : "-";
}

std::string escape(std::string_view s) {
  std::string r;
  r.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        r += "&amp;";
        break;
      case '<':
        r += "&lt;";
        break;
      case '>':
        r += "&gt;";
        break;
      case '"':
        r += "&quot;";
        break;
      case '\'':
        r += "&#39;";
        break;
      default:
        r += c;
    }
  }
  return r;
}

// Geometric mean of the kernels' speedups that are known; 0 when none is.
double geomean_speedup(const std::vector<KernelTuneSummary>& kernels) {
  double log_sum = 0;
  int n = 0;
  for (const KernelTuneSummary& k : kernels)
    if (double s = tune_speedup(k); s > 0) log_sum += std::log(s), ++n;
  return n ? std::exp(log_sum / n) : 0;
}

double total_tune_seconds(const std::vector<KernelTuneSummary>& kernels) {
  double t = 0;
  for (const KernelTuneSummary& k : kernels) t += nonnegative(k.tune_seconds);
  return t;
}

// ---- plots ------------------------------------------------------------------------

// Tableau 10, then hues a golden angle apart: neighbours in the table never
// share a colour, however many kernels there are.
std::string colour(size_t i) {
  static const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                         "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  if (i < std::size(kPalette)) return kPalette[i];
  std::string hsl = "hsl(";  // appended: GCC 12 warns falsely on "literal" + string
  hsl += std::to_string((i * 137) % 360);
  return hsl + ",60%,42%)";
}

// An SVG coordinate; every value passed is finite by construction, the
// guard keeps a slip from writing "nan" into the page.
std::string coord(double v) {
  return format("%.1f", std::isfinite(v) ? v : 0.0);
}

// Axis ticks 0, step, 2 step, ... up to the first multiple of a 1-2-5 step
// that reaches `max` (about five intervals).
// From min (0, or below it for negative data) to max, ticks every step.
struct Axis {
  double min, max, step;
  int decimals;
  // Where v lies between min (0) and max (1).
  double fraction(double v) const { return (v - min) / (max - min); }
};
// An axis over [min, max] (min <= 0) with about five round steps, both ends
// rounded out to a step.
Axis nice_axis(double max, double min = 0) {
  if (!positive(max - min)) max = min + 1;
  const double raw = (max - min) / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag * 10;
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * mag * (1 + 1e-9)) {
      step = m * mag;
      break;
    }
  const int decimals = step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
  return {min < 0 ? std::floor(min / step + 1e-9) * step : 0.0, std::ceil(max / step - 1e-9) * step,
          step, decimals};
}

std::string tick_label(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

constexpr double kWidth = 380, kHeight = 230;
constexpr double kLeft = 56, kRight = 14, kTop = 34, kBottom = 42;

// The frame of a plot: the SVG element opened, the title, grid lines,
// ticks, axes and their labels. The caller draws inside and closes </svg>.
void write_frame(std::ostream& out, const std::string& title, const Axis& xa, const Axis& ya,
                 const std::string& x_label, const std::string& y_label) {
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  const double bottom = kTop + ph, right = kLeft + pw;
  auto px = [&](double s) { return coord(kLeft + xa.fraction(s) * pw); };
  auto py = [&](double g) { return coord(bottom - ya.fraction(g) * ph); };
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight << "\">\n"
      << "<text x=\"" << kLeft << "\" y=\"14\" class=\"name\">" << escape(title) << "</text>\n";
  // Grid lines and ticks; the counters are integers so the last tick is exact.
  for (int i = 0; xa.min + i * xa.step <= xa.max * (1 + 1e-9); ++i) {
    const double v = xa.min + i * xa.step;
    out << "<line x1=\"" << px(v) << "\" y1=\"" << coord(kTop) << "\" x2=\"" << px(v) << "\" y2=\""
        << coord(bottom + 4) << "\" class=\"grid\"/><text x=\"" << px(v) << "\" y=\""
        << coord(bottom + 15) << "\" text-anchor=\"middle\">" << tick_label(v, xa.decimals)
        << "</text>\n";
  }
  for (int i = 0; ya.min + i * ya.step <= ya.max * (1 + 1e-9); ++i) {
    const double v = ya.min + i * ya.step;
    out << "<line x1=\"" << coord(kLeft - 4) << "\" y1=\"" << py(v) << "\" x2=\"" << coord(right)
        << "\" y2=\"" << py(v) << "\" class=\"grid\"/><text x=\"" << coord(kLeft - 6) << "\" y=\""
        << coord(bottom - ya.fraction(v) * ph + 4) << "\" text-anchor=\"end\">"
        << tick_label(v, ya.decimals) << "</text>\n";
  }
  out << "<line x1=\"" << coord(kLeft) << "\" y1=\"" << coord(bottom) << "\" x2=\"" << coord(right)
      << "\" y2=\"" << coord(bottom) << "\" class=\"axis\"/><line x1=\"" << coord(kLeft)
      << "\" y1=\"" << coord(kTop) << "\" x2=\"" << coord(kLeft) << "\" y2=\"" << coord(bottom)
      << "\" class=\"axis\"/>\n"
      << "<text x=\"" << coord(kLeft + pw / 2) << "\" y=\"" << coord(kHeight - 6)
      << "\" text-anchor=\"middle\">" << escape(x_label) << "</text><text transform=\"translate(14,"
      << coord(kTop + ph / 2) << ") rotate(-90)\" text-anchor=\"middle\">" << escape(y_label)
      << "</text>\n";
}

// One kernel's plot: its step curve in its own colour, the default schedule
// as a dashed grey line, axes with ticks and labels, and a legend.
void write_plot(std::ostream& out, const KernelTuneSummary& k, const std::string& stroke) {
  const std::vector<TuneCurvePoint> steps = tune_curve_steps(k);
  double x_max = positive(k.tune_seconds) ? k.tune_seconds : 0;
  double y_max = positive(k.default_gflops) ? k.default_gflops : 0;
  for (const TuneCurvePoint& p : steps) {
    x_max = std::max(x_max, p.seconds);
    y_max = std::max(y_max, p.best_gflops);
  }
  const Axis xa = nice_axis(x_max), ya = nice_axis(y_max * 1.05);
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  const double bottom = kTop + ph, right = kLeft + pw;
  auto px = [&](double s) { return coord(kLeft + xa.fraction(s) * pw); };
  auto py = [&](double g) { return coord(bottom - ya.fraction(g) * ph); };

  write_frame(out, k.kernel, xa, ya, "tuning time (s)", "GFLOPS");
  // Legend, top right: this kernel's colour is also its swatch in the table.
  out << "<line x1=\"" << coord(right - 150) << "\" y1=\"24\" x2=\"" << coord(right - 132)
      << "\" y2=\"24\" stroke=\"" << stroke << "\" stroke-width=\"2\"/>"
      << "<text x=\"" << coord(right - 128) << "\" y=\"28\">best</text>"
      << "<line x1=\"" << coord(right - 86) << "\" y1=\"24\" x2=\"" << coord(right - 68)
      << "\" y2=\"24\" class=\"default\"/>"
      << "<text x=\"" << coord(right - 64) << "\" y=\"28\">default</text>\n";
  if (positive(k.default_gflops))
    out << "<line x1=\"" << coord(kLeft) << "\" y1=\"" << py(k.default_gflops) << "\" x2=\""
        << coord(right) << "\" y2=\"" << py(k.default_gflops) << "\" class=\"default\"/>\n";
  if (steps.empty()) {
    out << "<text x=\"" << coord(kLeft + pw / 2) << "\" y=\"" << coord(kTop + ph / 2)
        << "\" text-anchor=\"middle\">no measurements</text>\n";
  } else {
    out << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"2\" points=\"";
    for (size_t i = 0; i < steps.size(); ++i)
      out << (i ? " " : "") << px(steps[i].seconds) << ',' << py(steps[i].best_gflops);
    // A dot where the best was found, so a curve of one point still shows:
    // the last vertex, or the one before it when the line goes on to the end
    // of tuning (then the count is even; n points alone give 2n - 1).
    const TuneCurvePoint& best = steps[steps.size() - (steps.size() % 2 ? 1 : 2)];
    out << "\"/>\n<circle cx=\"" << px(best.seconds) << "\" cy=\"" << py(best.best_gflops)
        << "\" r=\"3\" fill=\"" << stroke << "\"/>\n";
  }
  out << "</svg>\n";
}

// ---- page -------------------------------------------------------------------------

std::string latency(double seconds) {
  return figure(seconds * 1e3, "%.3f ms");
}

void write_table(std::ostream& out, const std::vector<KernelTuneSummary>& kernels) {
  out << "<table>\n<thead><tr><th>kernel</th><th>strategy</th><th>default GFLOPS</th>"
         "<th>tuned GFLOPS</th><th>speedup</th><th>default latency</th><th>tuned latency</th>"
         "<th>trials</th><th>time</th></tr></thead>\n<tbody>\n";
  int trials = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelTuneSummary& k = kernels[i];
    trials += std::max(k.trials, 0);
    out << "<tr><td><span class=\"swatch\" style=\"background:" << colour(i) << "\"></span>"
        << escape(k.kernel) << "</td><td>" << escape(k.strategy) << "</td><td>"
        << figure(k.default_gflops, "%.1f") << "</td><td>" << figure(k.tuned_gflops, "%.1f")
        << "</td><td>" << figure(tune_speedup(k), "%.2fx") << "</td><td>"
        << latency(k.default_seconds) << "</td><td>" << latency(k.tuned_seconds) << "</td><td>"
        << (k.trials >= 0 ? std::to_string(k.trials) : "-") << "</td><td>"
        << format("%.1f s", nonnegative(k.tune_seconds)) << "</td></tr>\n";
  }
  out << "</tbody>\n<tfoot><tr><td>total (geomean speedup)</td><td></td><td></td><td></td><td>"
      << figure(geomean_speedup(kernels), "%.2fx") << "</td><td></td><td></td><td>" << trials
      << "</td><td>" << format("%.1f s", total_tune_seconds(kernels))
      << "</td></tr></tfoot>\n</table>\n";
}

}  // namespace

// The page's head and style, up to and including <body>.
void write_head(std::ostream& out, const std::string& title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
      << escape(title) << "</title>\n<style>\n"
      << "body{font-family:sans-serif;margin:24px;color:#222}\n"
      << ".sub{color:#555}\n"
      << ".plots{display:flex;flex-wrap:wrap;gap:8px}\n"
      << "svg{border:1px solid #ddd;background:#fff}\n"
      << "svg text{font-size:11px;fill:#333}\n"
      << "svg .name{font-size:13px;font-weight:bold}\n"
      << ".grid{stroke:#eee}\n.axis{stroke:#444}\n"
      << ".default{stroke:#888;stroke-dasharray:5,4;stroke-width:1.5}\n"
      << "table{border-collapse:collapse;margin-top:12px}\n"
      << "th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}\n"
      << "th:first-child,td:first-child,td:nth-child(2){text-align:left}\n"
      << "tfoot td{font-weight:bold}\n"
      << ".swatch{display:inline-block;width:10px;height:10px;margin-right:6px}\n"
      << "</style>\n</head>\n<body>\n";
}

// The page shows one small plot per kernel (small multiples) rather than one
// plot with a line per kernel: a model's kernels differ in GFLOPS by 10x or
// more and in tuning budget too, so on shared axes the small ones flatten
// into the floor, and 20 overlapping step lines cannot be told apart by
// colour. Each plot has its own scales and the default schedule as a
// reference line; the colour ties it to the kernel's row of the table.
void write_tune_report(std::ostream& out, const std::string& title, const std::string& subtitle,
                       const std::vector<KernelTuneSummary>& kernels) {
  write_head(out, "tirc tune: " + title);
  out << "<h1>tirc tune: " << escape(title) << "</h1>\n<p class=\"sub\">" << escape(subtitle)
      << "</p>\n<p>" << kernels.size() << " kernel" << (kernels.size() == 1 ? "" : "s")
      << ", geomean speedup " << figure(geomean_speedup(kernels), "%.2fx")
      << " over the default schedules, " << format("%.1f s", total_tune_seconds(kernels))
      << " of tuning.</p>\n"
      << "<h2>Best GFLOPS against tuning time</h2>\n"
      << "<p>One plot per kernel, each on its own scales; the dashed line is the default "
         "schedule.</p>\n<div class=\"plots\">\n";
  for (size_t i = 0; i < kernels.size(); ++i) write_plot(out, kernels[i], colour(i));
  out << "</div>\n<h2>Kernels</h2>\n";
  write_table(out, kernels);
  out << "</body>\n</html>\n";
}

void print_tune_table(std::ostream& out, const std::vector<KernelTuneSummary>& kernels) {
  const std::string total = "total (geomean)";
  size_t width = total.size();
  for (const KernelTuneSummary& k : kernels) width = std::max(width, k.kernel.size());
  // Padded by hand, not with a printf width: a kernel name has no length limit.
  auto line = [&](const std::string& name, const std::string& def, const std::string& tuned,
                  const std::string& speedup, const std::string& trials, const std::string& time) {
    auto right = [&](const std::string& s, size_t n) {
      out << "  " << std::string(n > s.size() ? n - s.size() : 0, ' ') << s;
    };
    out << name << std::string(width - name.size(), ' ');
    right(def, 14), right(tuned, 12), right(speedup, 7), right(trials, 6), right(time, 8);
    out << '\n';
  };
  line("kernel", "default GFLOPS", "tuned GFLOPS", "speedup", "trials", "time");
  long trials = 0;
  for (const KernelTuneSummary& k : kernels) {
    trials += std::max(k.trials, 0);
    line(k.kernel, figure(k.default_gflops, "%.1f"), figure(k.tuned_gflops, "%.1f"),
         figure(tune_speedup(k), "%.2fx"), k.trials >= 0 ? std::to_string(k.trials) : "-",
         format("%.1fs", nonnegative(k.tune_seconds)));
  }
  line(total, "", "", figure(geomean_speedup(kernels), "%.2fx"), std::to_string(trials),
       format("%.1fs", total_tune_seconds(kernels)));
}

double tune_speedup(const KernelTuneSummary& k) {
  if (positive(k.default_gflops) && positive(k.tuned_gflops)) {
    const double s = k.tuned_gflops / k.default_gflops;
    if (positive(s)) return s;
  }
  if (positive(k.default_seconds) && positive(k.tuned_seconds)) {
    const double s = k.default_seconds / k.tuned_seconds;
    if (positive(s)) return s;
  }
  return 0;
}

std::vector<TuneCurvePoint> tune_curve_steps(const KernelTuneSummary& k) {
  std::vector<TuneCurvePoint> valid;
  for (const TuneCurvePoint& p : k.curve)
    if (std::isfinite(p.seconds) && p.seconds >= 0 && std::isfinite(p.best_gflops) &&
        p.best_gflops >= 0)
      valid.push_back(p);
  std::stable_sort(
      valid.begin(), valid.end(),
      [](const TuneCurvePoint& a, const TuneCurvePoint& b) { return a.seconds < b.seconds; });
  std::vector<TuneCurvePoint> steps;
  for (const TuneCurvePoint& p : valid) {
    if (!steps.empty()) steps.push_back({p.seconds, steps.back().best_gflops});
    steps.push_back(p);
  }
  if (!steps.empty() && std::isfinite(k.tune_seconds) && k.tune_seconds > steps.back().seconds)
    steps.push_back({k.tune_seconds, steps.back().best_gflops});
  return steps;
}

namespace {

// A line through (x, y) points with a dot on each, on its own scales (x from
// 0; y from 0, or from below the lowest y when some are negative: a mean
// return).
void write_series_plot(std::ostream& out, const std::string& title,
                       const std::vector<std::pair<double, double>>& points,
                       const std::string& x_label, const std::string& y_label,
                       const std::string& stroke) {
  std::vector<std::pair<double, double>> valid;
  double x_max = 0, y_max = 0, y_min = 0;
  for (const auto& [x, y] : points)
    if (std::isfinite(x) && std::isfinite(y) && x >= 0) {
      valid.emplace_back(x, y);
      x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
      y_min = std::min(y_min, y);
    }
  const Axis xa = nice_axis(x_max), ya = nice_axis(y_max * 1.05, y_min * 1.05);
  write_frame(out, title, xa, ya, x_label, y_label);
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto px = [&](double v) { return coord(kLeft + xa.fraction(v) * pw); };
  auto py = [&](double v) { return coord(kTop + ph - ya.fraction(v) * ph); };
  if (valid.empty())
    out << "<text x=\"" << coord(kLeft + pw / 2) << "\" y=\"" << coord(kTop + ph / 2)
        << "\" text-anchor=\"middle\">no points</text>\n";
  out << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"2\" points=\"";
  for (size_t i = 0; i < valid.size(); ++i)
    out << (i ? " " : "") << px(valid[i].first) << ',' << py(valid[i].second);
  out << "\"/>\n";
  for (const auto& [x, y] : valid)
    out << "<circle cx=\"" << px(x) << "\" cy=\"" << py(y) << "\" r=\"2.5\" fill=\"" << stroke
        << "\"/>\n";
  out << "</svg>\n";
}

}  // namespace

void write_training_report(std::ostream& out, const std::string& title, const std::string& subtitle,
                           const std::vector<TrainingCurvePoint>& curve,
                           const std::vector<PolicyRolloutRow>& rollouts) {
  write_head(out, "tirc train-policy: " + title);
  out << "<h1>tirc train-policy: " << escape(title) << "</h1>\n<p class=\"sub\">"
      << escape(subtitle) << "</p>\n<h2>Learning curve</h2>\n<div class=\"plots\">\n";
  std::vector<std::pair<double, double>> returns, speedups;
  for (const TrainingCurvePoint& p : curve) {
    returns.emplace_back(p.seconds / 60, p.mean_return);
    if (p.validation_speedup > 0) speedups.emplace_back(p.seconds / 60, p.validation_speedup);
  }
  write_series_plot(out, "mean episode return (last 100)", returns, "training time (min)", "return",
                    colour(0));
  write_series_plot(out, "validation speedup over the start", speedups, "training time (min)",
                    "geomean speedup", colour(1));
  out << "</div>\n<h2>Curve</h2>\n<table>\n<thead><tr><th>minutes</th><th>episodes</th>"
         "<th>mean return</th><th>validation speedup</th></tr></thead>\n<tbody>\n";
  for (const TrainingCurvePoint& p : curve)
    out << "<tr><td>" << format("%.1f", p.seconds / 60) << "</td><td>" << p.episodes << "</td><td>"
        << format("%.4f", p.mean_return) << "</td><td>" << figure(p.validation_speedup, "%.3fx")
        << "</td></tr>\n";
  out << "</tbody>\n</table>\n<h2>The kept policy on the test kernels</h2>\n<table>\n"
         "<thead><tr><th>kernel</th><th>actions</th><th>untuned GFLOPS</th>"
         "<th>start GFLOPS</th><th>policy GFLOPS</th><th>over untuned</th>"
         "<th>over start</th></tr></thead>\n<tbody>\n";
  for (const PolicyRolloutRow& r : rollouts)
    out << "<tr><td>" << escape(r.kernel) << "</td><td>" << escape(r.actions) << "</td><td>"
        << figure(r.plain_gflops, "%.2f") << "</td><td>" << figure(r.start_gflops, "%.2f")
        << "</td><td>" << figure(r.policy_gflops, "%.2f") << "</td><td>"
        << figure(positive(r.plain_gflops) ? r.policy_gflops / r.plain_gflops : 0, "%.2fx")
        << "</td><td>"
        << figure(positive(r.start_gflops) ? r.policy_gflops / r.start_gflops : 0, "%.3fx")
        << "</td></tr>\n";
  out << "</tbody>\n</table>\n</body>\n</html>\n";
}

}  // namespace tirc
