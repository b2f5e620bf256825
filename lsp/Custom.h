// isamap's own requests (isamap/mappings, isamap/schedule, isamap/diagram, isamap/targetCode;
// parameters and results in the README) as features: functions over an Analysis returning
// plain values, copied out under the analysis's lock. ProtocolJson.cpp writes them in the
// report/ JSON forms the CLI shares; Handlers.cpp only reads parameters and converts.
//
// Each answers with its result or why there is none (Answer): nothing to show (no kernel, no
// instance, a target with errors; the client gets {"message": why}), or a request that asks for
// what does not exist (a mapping candidate past the last: InvalidParams) or cannot be drawn.
#pragma once

#include "lsp/Analysis.h"
#include "lsp/Protocol.h"
#include "report/Json.h"
#include "viz/Viz.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace isam::lsp {

enum class Refusal { None, InvalidParams, Failed };

template <class T> struct Answer {
  std::optional<T> result;
  Refusal refusal = Refusal::None; // without a result: the request is refused with this error
  std::string message;             // without a result: why
};

// Work-done progress of a request's long step (scheduling, compiling): begin(title) is always
// followed by end(), cancelled or not. Empty functions report nothing.
struct Progress {
  std::function<void(const std::string &title)> begin;
  std::function<void()> end;
};

// What an answer is of: the kernel, the instance that stands for it, the target, and the IR
// statement in focus (none: every statement).
struct About {
  std::string kernel, instance, target;
  std::optional<size_t> statement;
};

struct MappingsResult {
  About about;
  ir::Kernel kernel; // the instance, which the mappings' indices name
  hw::Target target; // which the mappings' instruction indices name
  struct Statement {
    mapping::StatementMappings mappings;
    std::optional<report::FileRange> range;
  };
  std::vector<Statement> statements; // the one in focus, or all
};

struct ScheduleResult {
  About about;
  ir::Kernel kernel;
  hw::Target target; // which the schedule's instruction and move indices name
  schedule::KernelSchedule schedule;
  std::string text; // schedule::printSchedule's
};

struct DiagramParams {
  FocusParams focus;
  viz::What view = viz::What::Schedule;
  std::string viewName = "schedule";
  bool dot = false;     // the DOT text instead of an SVG drawing
  size_t candidate = 0; // mapping view: which candidate, best first
};

struct DiagramResult {
  std::optional<About> about; // none for the hardware view, which is of a target only
  std::string target;
  std::string viewName;
  bool dot = false;
  std::string text; // DOT or SVG
};

struct TargetCodeParams {
  FocusParams focus;
  bool llvm = false; // LLVM IR instead of assembly
};

struct TargetCode {
  About about;
  bool llvm = false;
  std::string text;
  bool stream = false; // an accelerator's instruction stream (times: emitMs)
  double emitMs = 0, generateMs = 0, optimizeMs = 0, machineCodeMs = 0;
};

// Each takes the analysis's lock. `stop` is polled while mapping, scheduling and compiling; a
// stopped request answers without a result.
Answer<MappingsResult> mappings(Analysis &a, const FocusParams &p, const StopFn &stop = {});
Answer<ScheduleResult> schedule(Analysis &a, const FocusParams &p, const StopFn &stop = {},
                                const Progress &progress = {});
Answer<DiagramResult> diagram(Analysis &a, const DiagramParams &p, const StopFn &stop = {},
                              const Progress &progress = {});
Answer<TargetCode> targetCode(Analysis &a, const TargetCodeParams &p, const StopFn &stop = {},
                              const Progress &progress = {});

} // namespace isam::lsp
