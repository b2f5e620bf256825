#include "viz/Viz.h"

#include "viz/HardwareGraph.h"
#include "viz/KernelGraph.h"
#include "viz/MappingGraph.h"
#include "viz/ScheduleGraph.h"

namespace isam::viz {

std::optional<What> parseWhat(const std::string &name) {
  if (name == "kernel")
    return What::Kernel;
  if (name == "hardware")
    return What::Hardware;
  if (name == "mapping")
    return What::Mapping;
  if (name == "schedule")
    return What::Schedule;
  return std::nullopt;
}

namespace {

std::string list(const std::vector<std::string> &names, size_t max = 8) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < max; ++i)
    out += (i ? ", " : "") + names[i];
  if (names.size() > max)
    out += ", ...";
  return out;
}

// The one instance a picture is about.
std::optional<ir::Kernel> oneInstance(Session &session, const Request &r) {
  std::vector<ir::Kernel> kernels = session.instances(r.selector);
  if (session.diagnostics().hasErrors())
    return std::nullopt;
  if (kernels.empty()) {
    session.diagnostics().error("E0202", {},
                                "the file declares no instance to draw; name one with --instance "
                                "or bind a kernel with --kernel -D");
    return std::nullopt;
  }
  if (kernels.size() > 1) {
    std::vector<std::string> names;
    for (const auto &k : kernels)
      names.push_back(k.name);
    session.diagnostics().error("", {},
                                "the file declares " + std::to_string(kernels.size()) +
                                    " instances; a picture shows one: choose it with --instance (" +
                                    list(names) + ")");
    return std::nullopt;
  }
  return std::move(kernels.front());
}

// The target or system named by the request, or the only one the main file declares.
std::optional<std::string> targetName(Session &session, const Request &r) {
  if (!r.target.empty())
    return r.target;
  std::vector<std::string> names;
  if (const ast::File *f = session.mainFile()) {
    for (const auto &t : f->targets)
      names.push_back(t.name.name);
    for (const auto &s : f->systems)
      names.push_back(s.name.name);
  }
  if (names.size() == 1)
    return names.front();
  session.diagnostics().error(
      "", {},
      names.empty() ? "this picture needs a target: name one with --target (e.g. x86_avx512, "
                      "systolic16, soc)"
                    : "the file declares " + std::to_string(names.size()) +
                          " targets and systems; choose one with --target (" + list(names) + ")");
  return std::nullopt;
}

struct Hardware {
  std::optional<hw::System> system;
  std::vector<hw::Target> units; // a system's hosts and devices, or the one target
};

std::optional<Hardware> hardware(Session &session, const std::string &name) {
  Hardware h;
  if (session.isSystem(name)) {
    h.system = session.system(name);
    if (!h.system)
      return std::nullopt;
    std::vector<std::string> names = h.system->hosts;
    names.insert(names.end(), h.system->devices.begin(), h.system->devices.end());
    for (const auto &n : names)
      if (auto t = session.target(n))
        h.units.push_back(std::move(*t));
  } else if (auto t = session.target(name)) {
    h.units.push_back(std::move(*t));
  }
  if (session.diagnostics().hasErrors() || h.units.empty())
    return std::nullopt;
  return h;
}

bool checkStatement(Session &session, const ir::Kernel &k, std::optional<size_t> statement) {
  if (!statement || *statement < k.statements.size())
    return true;
  session.diagnostics().error(
      "E0202", {},
      "instance '" + k.name + "' has no statement s" + std::to_string(*statement) +
          (k.statements.empty()
               ? " (it has none)"
               : " (its statements are s0 to s" + std::to_string(k.statements.size() - 1) + ")"));
  return false;
}

} // namespace

std::optional<std::string> dotFor(Session &session, const Request &r) {
  if (r.what == What::Kernel) {
    auto k = oneInstance(session, r);
    if (!k)
      return std::nullopt;
    return kernelGraph(*k, r.options);
  }
  auto name = targetName(session, r);
  if (!name)
    return std::nullopt;
  if (r.what == What::Hardware) {
    auto h = hardware(session, *name);
    if (!h)
      return std::nullopt;
    if (h->system)
      return systemGraph(*h->system, h->units, r.options);
    return hardwareGraph(h->units.front(), r.options);
  }

  auto k = oneInstance(session, r);
  if (!k || !checkStatement(session, *k, r.statement))
    return std::nullopt;
  auto h = hardware(session, *name);
  if (!h)
    return std::nullopt;

  if (r.what == What::Mapping) {
    size_t statement = r.statement.value_or(0);
    if (k->statements.empty()) {
      session.diagnostics().error("E0202", {},
                                  "instance '" + k->name + "' has no statement to map");
      return std::nullopt;
    }
    // On a system, the statement's mapping on the unit the partition places it on.
    std::vector<std::vector<mapping::StatementMappings>> perUnit;
    for (const auto &u : h->units)
      perUnit.push_back(session.mappings(*k, u, r.mapOptions));
    if (session.diagnostics().hasErrors())
      return std::nullopt;
    size_t unit = 0;
    if (h->system) {
      auto p = mapping::partition(*k, *h->system, h->units, perUnit);
      for (size_t u = 0; u < h->units.size(); ++u)
        if (statement < p.placements.size() && h->units[u].name == p.placements[statement].unit)
          unit = u;
    }
    if (statement >= perUnit[unit].size()) {
      session.diagnostics().error("", {}, "no mappings of s" + std::to_string(statement));
      return std::nullopt;
    }
    // A mapping past the last is an error (the picture used to say so and exit 0). With no
    // mapping at all, the default first one draws the statement and says why there is none.
    size_t count = perUnit[unit][statement].candidates.size();
    if (r.mapping >= count && (count > 0 || r.mapping > 0)) {
      session.diagnostics().error("", {},
                                  "there is no mapping #" + std::to_string(r.mapping + 1) +
                                      " of s" + std::to_string(statement) + " on " +
                                      h->units[unit].name + ": it has " + std::to_string(count) +
                                      " mapping" + (count == 1 ? "" : "s"));
      return std::nullopt;
    }
    return mappingGraph(*k, perUnit[unit][statement], h->units[unit], r.mapping, r.options);
  }

  // Schedule.
  if (h->system) {
    std::vector<std::vector<mapping::StatementMappings>> perUnit;
    for (const auto &u : h->units)
      perUnit.push_back(session.mappings(*k, u, r.mapOptions));
    if (session.diagnostics().hasErrors())
      return std::nullopt;
    auto p = mapping::partition(*k, *h->system, h->units, perUnit);
    return partitionGraph(*k, *h->system, h->units, p, r.options);
  }
  auto ks = session.schedule(*k, h->units.front(), r.scheduleOptions, r.mapOptions);
  if (session.diagnostics().hasErrors())
    return std::nullopt;
  return scheduleGraph(*k, h->units.front(), ks, r.statement, r.options);
}

} // namespace isam::viz
