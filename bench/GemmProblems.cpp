#include "GemmProblems.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace isam::bench {

std::string GemmProblem::label() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::string GemmProblem::layout() const {
  return std::string(transA ? "T" : "N") + (transB ? "T" : "N");
}

std::optional<std::vector<GemmProblem>> readGemmProblems(const std::string &path,
                                                         std::string &error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the GEMM sizes file '" + path + "' (pass --csv PATH)";
    return std::nullopt;
  }
  std::vector<GemmProblem> out;
  std::map<std::string, int> column;
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');)
      cells.push_back(c);
    if (column.empty()) { // the header names the columns
      for (size_t i = 0; i < cells.size(); ++i)
        column[cells[i]] = int(i);
      for (const char *need : {"M", "N", "K", "transA", "transB"})
        if (!column.count(need)) {
          error = path + ": the header has no '" + need + "' column";
          return std::nullopt;
        }
      continue;
    }
    auto at = [&](const char *name) -> std::string {
      auto it = column.find(name);
      return it != column.end() && size_t(it->second) < cells.size() ? cells[size_t(it->second)]
                                                                     : "";
    };
    GemmProblem p;
    p.set = at("set");
    char *end = nullptr;
    for (auto [field, name] : {std::pair{&p.m, "M"}, {&p.n, "N"}, {&p.k, "K"}}) {
      std::string v = at(name);
      *field = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || *field <= 0) {
        error = path + ":" + std::to_string(lineNo) + ": bad " + name + " '" + v + "'";
        return std::nullopt;
      }
    }
    std::string ta = at("transA"), tb = at("transB");
    if ((ta != "N" && ta != "T") || (tb != "N" && tb != "T")) {
      error = path + ":" + std::to_string(lineNo) + ": transA/transB must be N or T";
      return std::nullopt;
    }
    p.transA = ta == "T";
    p.transB = tb == "T";
    out.push_back(p);
  }
  if (column.empty()) {
    error = path + ": no header line";
    return std::nullopt;
  }
  return out;
}

// The shapes to run: those whose label contains `filter`, duplicates (a size in several DeepBench
// sets) once, T,T (no kernel in samples/gemm.isam, and DeepBench has none) skipped, then at most
// `limit` (0: all).
std::vector<GemmProblem> selectGemmProblems(const std::vector<GemmProblem> &all,
                                            const std::string &filter, size_t limit,
                                            size_t &duplicates, size_t &skippedTT) {
  std::vector<GemmProblem> out;
  std::vector<std::string> seen;
  for (const auto &p : all) {
    if (p.label().find(filter) == std::string::npos)
      continue;
    if (p.transA && p.transB) {
      ++skippedTT;
      continue;
    }
    std::string key = p.label() + p.layout();
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      ++duplicates;
      continue;
    }
    seen.push_back(key);
    if (limit && out.size() == limit)
      break;
    out.push_back(p);
  }
  return out;
}

const char *gemmKernelFor(const GemmProblem &p) {
  return p.transA ? "gemm_tn" : p.transB ? "gemm_nt" : "gemm";
}

} // namespace isam::bench
