// The pipeline: every command that compiles or runs kernels (isamap schedule, compile and run,
// the language server's target code, the benchmarks) goes through these stages, in this order,
// and nowhere else decides how the back half is put together:
//
//   parse        Session::loadFile: the file and its imports
//   sema         Session::instances: checked and instantiated kernels; Session::target
//   mapping      Session::mappings: every mapping of each statement onto the target
//   schedule     Session::schedule: the search over those mappings, lowered to schedule IR
//   codegen      LLVM IR and assembly (backends/llvm), or an instruction stream (backends/accel)
//   emit         to a file: an object, a shared library, a header, a listing, a stream
//   execute      on the executor chosen once for the target (Executor.h)
//
// Each stage returns a plain value, and prints it when Options::printAfter names it (Stage.h):
// to Options::printTo (the CLI's stderr), headed `// ---- after STAGE: WHAT ----`, so that the
// command's own output (stdout, or the file it writes) is the same with or without printing.
#pragma once

#include "backends/llvm/Backend.h"
#include "driver/Session.h"
#include "pipeline/Executor.h"
#include "pipeline/Stage.h"
#include "pipeline/TuningDb.h"

#include <llvm/Support/Error.h>

#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace isam::pipeline {

struct Options {
  std::string target; // empty: none (the reference interpreter runs the instances)
  // A target built before, used instead of building `target` (the benchmarks reuse one across
  // sessions: the host's is calibrated, which takes a while). Must outlive the pipeline.
  const hw::Target *givenTarget = nullptr;
  // The threads the code will run on (0: the target's cores): the schedules are made for that
  // many of the target's cores, and what the model says is for them, so that `run --threads 1`
  // and `tune --threads 1` set one core's estimate beside one thread's time.
  unsigned threads = 0;
  schedule::ScheduleOptions schedule;
  // Measured schedules (isamap tune): an instance with a record for the target on this machine
  // is scheduled as it records, not searched. Must outlive the pipeline.
  const TuningDb *tuning = nullptr;
  bool tunedSchedules = true; // false: the database's model correction only (tune searches anew)
  mapping::MapOptions map;
  std::set<Stage> printAfter;
  std::ostream *printTo = nullptr; // where printAfter goes; null: std::cerr
};

// One instance through mapping and scheduling.
struct Scheduled {
  const ir::Kernel *kernel = nullptr; // the caller's, which outlives this
  std::vector<mapping::StatementMappings> mappings;
  schedule::KernelSchedule schedule;
  double milliseconds = 0; // mapping and scheduling
};

// Native code as text, or an accelerator's instruction listing.
struct Code {
  std::string text;
  backend::CompileTimes llvm; // native code
  double emitMs = 0;          // an accelerator's stream
};

// What a target's code is written as: what `compile --emit` and the target code request name.
enum class Output { Object, Assembly, LlvmIr, Shared, Header, Stream };

// Whether `target` has `output`: native targets all but Stream, accelerators Assembly (their
// instruction listing) and Stream (its JSON form).
bool canEmit(const hw::Target &target, Output output);

// The code of `kernels` (instances and their schedules) for `target` as text: LLVM IR or
// assembly for a native target (Output LlvmIr or Assembly), the instruction listing of an
// accelerator (Assembly). Errors say why there is none.
llvm::Expected<Code> codeText(const hw::Target &target,
                              const std::vector<backend::KernelCode> &kernels, Output output);

class Pipeline {
public:
  Pipeline(Session &session, Options options);
  ~Pipeline();

  Session &session() { return session_; }
  const Options &options() const { return options_; }

  // parse: reads `file` and its imports; false when the main file cannot be read.
  bool parse(const std::string &file);
  // sema: the selected instances, checked (errors go to the session).
  std::vector<ir::Kernel> instantiate(const InstanceSelector &selector);
  // sema: the target Options::target names, built from its description (or the given one);
  // null when there is none, or when the session had errors when it was built. Built once.
  const hw::Target *target();
  // What cannot be printed for this target although asked for (llvm-ir of an accelerator), as a
  // usage message; empty when all can.
  std::string unprintable();

  // mapping and schedule (needs target()); nullopt when the session has errors.
  std::optional<Scheduled> schedule(const ir::Kernel &kernel);
  // codegen: prints the code stages asked for (llvm-ir, asm) of these instances, compiled
  // together as `compile` does. Does nothing when none is asked for.
  llvm::Error printCode(const std::vector<const Scheduled *> &kernels);
  // emit: the kernels' code written to `path` (source/FileIo.h's policy: complete or not at
  // all). `times` gets LLVM's time for native code.
  llvm::Error emit(const std::vector<const Scheduled *> &kernels, Output output,
                   const std::string &path, backend::CompileTimes *times = nullptr);
  // execute: the executor for target() (the interpreter without one), made on first use.
  llvm::Expected<Executor *> executor();

private:
  bool printing(Stage stage) const { return options_.printAfter.count(stage) != 0; }
  std::ostream &printStream() const;
  void heading(Stage stage, const std::string &what) const;

  Session &session_;
  Options options_;
  bool targetBuilt_ = false;
  std::optional<hw::Target> target_;
  std::unique_ptr<Executor> executor_;
  // Options::tuning's correction of the model for target(), fitted once.
  bool correctionFitted_ = false;
  schedule::Correction correction_;
};

} // namespace isam::pipeline
