// The pictures a front end asks for by name: drives a Session (instances, targets, mappings,
// schedules, partitions) and returns the DOT text of one picture. Problems with the request
// (no such statement, several instances to choose from, no target) are diagnostics in the
// session, like every other problem with the input.
#pragma once

#include "driver/Session.h"
#include "viz/Style.h"

#include <optional>
#include <string>

namespace isam::viz {

enum class What { Kernel, Hardware, Mapping, Schedule };
std::optional<What> parseWhat(const std::string &name); // "kernel", "hardware", ...

struct Request {
  What what = What::Kernel;
  std::string target;              // a target or system; may be empty when the file declares one
  InstanceSelector selector;       // must select exactly one instance (kernel, mapping, schedule)
  std::optional<size_t> statement; // mapping: default s0; schedule: default every statement
  size_t mapping = 0;              // mapping: which candidate, best first
  Options options;
  mapping::MapOptions mapOptions;
  // The candidate budget, not the clock, stops the search by default, so that the same input
  // gives the same picture.
  schedule::ScheduleOptions scheduleOptions = [] {
    schedule::ScheduleOptions so;
    so.budget.milliseconds = 60000;
    return so;
  }();
};

// The DOT text of the picture, or nullopt with the reasons in session.diagnostics(). The
// session must have loaded its file.
std::optional<std::string> dotFor(Session &session, const Request &request);

} // namespace isam::viz
