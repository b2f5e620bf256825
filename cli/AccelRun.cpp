#include "AccelRun.h"
#include "source/Quantities.h"

#include <cmath>
#include <fstream>
#include <iostream>

namespace isam::cli {

std::string tracePathFor(const std::string &path, const std::string &instance, bool several) {
  if (path.empty() || !several)
    return path;
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return path + "." + instance;
  return path.substr(0, dot) + "." + instance + path.substr(dot);
}

accel::Program readStream(const std::string &path, const ir::Kernel &kernel,
                          const hw::Target &target) {
  std::ifstream in(path);
  if (!in)
    throw accel::Error("cannot read the stream " + path);
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    throw accel::Error(path + " is not JSON");
  if (doc.is_array()) {
    for (const auto &p : doc)
      if (p.is_object() && p.value("kernel", "") == kernel.name)
        return accel::fromJson(p, kernel, target);
    throw accel::Error(path + " holds no stream for " + kernel.name);
  }
  return accel::fromJson(doc, kernel, target);
}

void reportSimulation(const ir::Kernel &kernel, const hw::Target &target,
                      const schedule::KernelSchedule &schedule, const accel::SimResult &r,
                      const std::string &tracePath, bool text, nlohmann::json &result) {
  double estimate = 0;
  bool anyMapped = false;
  for (const auto &ss : schedule.statements)
    if (ss.config.mapping >= 0) {
      estimate += ss.cost.cycles;
      anyMapped = true;
    }
  nlohmann::json units = nlohmann::json::array(), bytes = nlohmann::json::object();
  for (const auto &u : r.units)
    units.push_back({{"unit", u.name},
                     {"lanes", u.lanes},
                     {"instructions", u.instructions},
                     {"busy", r.cycles > 0 ? u.busyCycles / (r.cycles * u.lanes) : 0}});
  for (const auto &m : r.memories)
    bytes[m.name] = {{"in", m.bytesIn}, {"out", m.bytesOut}};
  result["simulator"] = "isamap accel";
  result["cycles"] = r.cycles;
  result["seconds"] = r.seconds;
  result["utilization"] = r.utilization;
  result["estimatedCycles"] = estimate;
  if (anyMapped && r.cycles > 0)
    result["costModelError"] = (estimate - r.cycles) / r.cycles;
  result["instructions"] = r.instructions;
  result["units"] = units;
  result["bytes"] = bytes;
  result["hostOps"] = r.hostOps;
  result["hostBytes"] = r.hostBytes;
  result["statementCycles"] = r.statementCycles;
  result["trace"] = tracePath.empty() ? nlohmann::json(nullptr) : nlohmann::json(tracePath);
  if (!text)
    return;
  std::cout << kernel.name << " on " << target.name << " (simulated): " << r.cycles << " cycles, "
            << r.seconds * 1e6 << " us at " << target.clockHz / 1e9 << " GHz, "
            << 100 * r.utilization << "% of the compute peak; the cost model estimated " << estimate
            << " cycles";
  if (anyMapped && r.cycles > 0)
    std::cout << " (" << (estimate >= r.cycles ? "+" : "")
              << std::round(1000 * (estimate - r.cycles) / r.cycles) / 10 << "%)";
  std::cout << "\n  " << r.instructions << " instructions:";
  for (const auto &u : r.units)
    std::cout << " " << u.name << " " << u.instructions << " (busy "
              << std::round(r.cycles > 0 ? 100 * u.busyCycles / (r.cycles * u.lanes) : 0) << "%)";
  std::cout << "\n  moved:";
  for (const auto &m : r.memories)
    if (m.bytesIn || m.bytesOut)
      std::cout << " " << m.name << " in " << formatBytes(double(m.bytesIn)) << ", out "
                << formatBytes(double(m.bytesOut)) << ";";
  std::cout << "\n";
  if (r.hostOps)
    std::cout << "  host: " << r.hostOps << (r.hostOps == 1 ? " step" : " steps")
              << " (clearing outputs, packing views, statements no instruction runs) over "
              << formatBytes(double(r.hostBytes)) << ", not in the cycles\n";
  if (!tracePath.empty())
    std::cout << "  trace: " << tracePath
              << (r.traceDropped ? " (the first " + std::to_string(r.traceEvents) + " events)"
                                 : std::string())
              << "\n";
}

} // namespace isam::cli
