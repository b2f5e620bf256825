// Printing and summarising the benchmark's rows (see Report.h).
#include "Report.h"

#include <algorithm>
#include <map>
#include <set>

namespace isam::bench {

namespace {

constexpr int kLabelWidth = 22;

// "  1234.5  56%": GFLOP/s and the fraction of the roofline; "n/a" when not measured.
std::string cell(const Figure &f, double roofline) {
  char buf[64];
  if (!f.measured)
    std::snprintf(buf, sizeof buf, "%14s", "n/a");
  else if (roofline > 0)
    std::snprintf(buf, sizeof buf, "%8.1f %4.0f%%", f.gflops, 100 * f.gflops / roofline);
  else
    std::snprintf(buf, sizeof buf, "%8.1f      ", f.gflops);
  return buf;
}

nlohmann::json figureJson(const Figure &f, double roofline) {
  if (!f.measured)
    return {{"measured", false}, {"note", f.note}};
  return {
      {"measured", true},         {"note", f.note},
      {"gflops", f.gflops},       {"fraction_of_roofline", roofline > 0 ? f.gflops / roofline : 0},
      {"best_s", f.timing.bestS}, {"median_s", f.timing.medianS},
      {"runs", f.timing.runs}};
}

} // namespace

double ratioToBest(const Row &row, int *best) {
  int b = -1;
  for (size_t i = 0; i < row.libraries.size(); ++i)
    if (row.libraries[i].measured && (b < 0 || row.libraries[i].gflops > row.libraries[b].gflops))
      b = int(i);
  if (best)
    *best = b;
  if (b < 0 || !row.isamap.measured)
    return 0;
  return row.isamap.gflops / row.libraries[b].gflops;
}

int Report::nameWidth() const {
  size_t w = 6; // "isamap"
  for (const auto &l : libraries_)
    w = std::max(w, l.size());
  return int(w);
}

// "0.123 (library)"
int Report::ratioWidth() const {
  return std::max(11, nameWidth() + 9);
}

void Report::printHeader() const {
  std::fprintf(out_, "\n== %s ==\n", title_.c_str());
  std::fprintf(out_, "%-*s %-2s %3s %9s | %14s", kLabelWidth, "shape", "ly", "thr", "roofline",
               "isamap");
  for (const auto &l : libraries_)
    std::fprintf(out_, " %14s", l.c_str());
  std::fprintf(out_, " | %-*s %9s %9s | %s\n", ratioWidth(), "isamap/best", "compile", "map+sch",
               "check");
  std::fprintf(out_, "%-*s %-2s %3s %9s | %14s", kLabelWidth, "", "", "", "GFLOP/s",
               "GFLOP/s  roof");
  for (size_t i = 0; i < libraries_.size(); ++i)
    std::fprintf(out_, " %14s", "GFLOP/s  roof");
  std::fprintf(out_, " | %-*s %9s %9s |\n", ratioWidth(), "", "ms", "ms");
  std::fflush(out_);
}

void Report::add(Row row) {
  // The header comes with the first row: a --filter may leave a suite empty.
  if (rows_.empty())
    printHeader();
  std::fprintf(out_, "%-*s %-2s %3d %9.1f | %s", kLabelWidth, row.label.c_str(), row.layout.c_str(),
               row.threads, row.rooflineGflops, cell(row.isamap, row.rooflineGflops).c_str());
  for (const auto &f : row.libraries)
    std::fprintf(out_, " %s", cell(f, row.rooflineGflops).c_str());
  int best = -1;
  double ratio = ratioToBest(row, &best);
  char ratioText[64] = "n/a";
  if (ratio > 0)
    std::snprintf(ratioText, sizeof ratioText, "%6.3f (%s)", ratio,
                  libraries_[size_t(best)].c_str());
  if (row.compiled)
    std::fprintf(out_, " | %-*s %9.1f %9.1f | %s\n", ratioWidth(), ratioText, row.compileMs,
                 row.mapScheduleMs, row.check.c_str());
  else
    std::fprintf(out_, " | %-*s %9s %9s | %s\n", ratioWidth(), ratioText, "-", "-",
                 row.check.c_str());
  // Notes under the row: why a figure is missing (every row), and what a measured library
  // ran (its implementation's name; once per shape, so that the table stays readable).
  bool firstOfShape = rows_.empty() || rows_.back().label != row.label;
  if (!row.isamap.measured && !row.isamap.note.empty())
    std::fprintf(out_, "    isamap: %s\n", row.isamap.note.c_str());
  for (size_t i = 0; i < row.libraries.size(); ++i) {
    const Figure &f = row.libraries[i];
    if (!f.note.empty() && f.note != "not loaded" && (!f.measured || firstOfShape))
      std::fprintf(out_, "    %s: %s\n", libraries_[i].c_str(), f.note.c_str());
  }
  std::fflush(out_);
  rows_.push_back(std::move(row));
}

void Report::printSummary() const {
  if (rows_.empty())
    return;
  std::set<int> threadCounts;
  for (const auto &r : rows_)
    threadCounts.insert(r.threads);
  for (int t : threadCounts) {
    std::vector<double> ratios;
    std::vector<std::vector<double>> gflops(libraries_.size() + 1), fraction(libraries_.size() + 1);
    size_t rows = 0, ok = 0, failed = 0, aboveRoof = 0;
    double maxFraction = 0;
    for (const auto &r : rows_) {
      if (r.threads != t)
        continue;
      ++rows;
      for (size_t i = 0; i <= libraries_.size(); ++i) {
        const Figure &f = i == 0 ? r.isamap : r.libraries[i - 1];
        if (f.measured) {
          gflops[i].push_back(f.gflops);
          if (r.rooflineGflops > 0) {
            double q = f.gflops / r.rooflineGflops;
            fraction[i].push_back(q);
            aboveRoof += q > 1;
            maxFraction = std::max(maxFraction, q);
          }
        }
      }
      if (double q = ratioToBest(r); q > 0)
        ratios.push_back(q);
      ok += r.check.rfind("ok", 0) == 0;
      failed += r.checkFailed;
    }
    std::fprintf(out_, "%s, %d thread%s, %zu shapes; geometric means (shapes measured):\n",
                 title_.c_str(), t, t == 1 ? "" : "s", rows);
    for (size_t i = 0; i <= libraries_.size(); ++i) {
      const std::string &name = i == 0 ? std::string("isamap") : libraries_[i - 1];
      if (gflops[i].empty())
        std::fprintf(out_, "  %-*s n/a\n", nameWidth(), name.c_str());
      else
        std::fprintf(out_, "  %-*s %8.1f GFLOP/s  %5.1f%% of roofline  (%zu)\n", nameWidth(),
                     name.c_str(), geomean(gflops[i]), 100 * geomean(fraction[i]),
                     gflops[i].size());
    }
    if (ratios.empty())
      std::fprintf(out_, "  isamap / best library: n/a\n");
    else
      std::fprintf(out_, "  isamap / best library: %.3f  (%zu shapes)\n", geomean(ratios),
                   ratios.size());
    std::fprintf(out_, "  check: %zu ok, %zu FAIL, %zu not checked\n", ok, failed,
                 rows - ok - failed);
    // No code beats a correct roofline: a figure above it means the target description
    // understates this machine (another CPU, a higher clock, more FMA pipes or bandwidth).
    if (aboveRoof)
      std::fprintf(out_,
                   "  note: %zu figure%s above the roofline (up to %.0f%%): the target "
                   "description understates this machine\n",
                   aboveRoof, aboveRoof == 1 ? " is" : "s are", 100 * maxFraction);
  }
  // Compile times do not depend on the thread count: each shape once.
  std::vector<double> compile, mapSchedule;
  std::set<std::string> seen;
  for (const auto &r : rows_)
    if (r.compiled && seen.insert(r.label + r.layout).second) {
      compile.push_back(r.compileMs);
      mapSchedule.push_back(r.mapScheduleMs);
    }
  if (!compile.empty()) {
    auto total = [](const std::vector<double> &v) {
      double s = 0;
      for (double x : v)
        s += x;
      return s;
    };
    std::fprintf(out_,
                 "  isamap per instance: compile (generate+optimize+machine code) geomean %.1f "
                 "ms, max %.1f ms; map+schedule geomean %.1f ms, max %.1f ms; total %.2f s\n",
                 geomean(compile), *std::max_element(compile.begin(), compile.end()),
                 geomean(mapSchedule), *std::max_element(mapSchedule.begin(), mapSchedule.end()),
                 (total(compile) + total(mapSchedule)) / 1e3);
  }
  std::fflush(out_);
}

nlohmann::json Report::json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto &r : rows_) {
    nlohmann::json libs = nlohmann::json::object();
    for (size_t i = 0; i < r.libraries.size(); ++i)
      libs[libraries_[i]] = figureJson(r.libraries[i], r.rooflineGflops);
    int best = -1;
    double ratio = ratioToBest(r, &best);
    nlohmann::json row = {{"shape", r.label},
                          {"layout", r.layout},
                          {"threads", r.threads},
                          {"flops", r.flops},
                          {"bytes", r.bytes},
                          {"roofline_gflops", r.rooflineGflops},
                          {"isamap", figureJson(r.isamap, r.rooflineGflops)},
                          {"libraries", libs},
                          {"isamap_over_best", ratio > 0 ? nlohmann::json(ratio) : nullptr},
                          {"best_library", best >= 0 ? libraries_[size_t(best)] : ""},
                          {"check", r.check},
                          {"check_failed", r.checkFailed}};
    if (r.compiled)
      row["isamap_compile_ms"] = {{"generate", r.times.generateMs},
                                  {"optimize", r.times.optimizeMs},
                                  {"machine_code", r.times.machineCodeMs},
                                  {"total", r.compileMs},
                                  {"map_schedule", r.mapScheduleMs}};
    rows.push_back(std::move(row));
  }
  return {{"title", title_}, {"libraries", libraries_}, {"rows", rows}};
}

size_t Report::failures() const {
  size_t n = 0;
  for (const auto &r : rows_)
    n += r.checkFailed;
  return n;
}

} // namespace isam::bench
