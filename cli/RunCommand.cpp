// `isamap run FILE`: executes the selected instances on seeded random inputs (or the user's
// NumPy files: --inputs, --outputs), either with the
// reference interpreter (--interpret) or on the executor the pipeline chooses for --target NAME
// (pipeline/Executor.h: the ORC JIT in process; for another architecture, cross-linked and run
// under qemu-user, where the times are the emulator's; for an accelerator that exists only as
// its description, its instruction stream on the simulator). The result can be checked against
// the interpreter (--check) and timed (--repeat). Prints a summary of each output.
#include "AccelRun.h"
#include "Commands.h"
#include "Common.h"
#include "Memory.h"
#include "ReferenceCheck.h"
#include "interp/Interpreter.h"
#include "interp/NumpyFiles.h"
#include "pipeline/Pipeline.h"
#include "source/Quantities.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace isam::cli {

namespace {

struct RunOptions {
  std::string file, target, trace, stream;
  std::string inputs, outputs; // --inputs, --outputs: NumPy files (interp/NumpyFiles.h)
  CommonOptions common;
  SelectorOptions selector;
  SearchOptions search;
  std::vector<std::string> printAfter;
  bool interpret = false, check = false;
  interp::Reference reference = interp::Reference::Rows;
  uint64_t seed = 1;
  size_t show = 8, repeat = 1;
  unsigned threads = 0;
};

nlohmann::json summariseOutputs(const ir::Kernel &k, const interp::Buffers &buffers, size_t show,
                                bool text) {
  nlohmann::json outputs = nlohmann::json::array();
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    if (k.tensors[t].role != ir::TensorRole::Output)
      continue;
    double sum = 0, sumAbs = 0;
    for (double v : buffers[t])
      sum += v, sumAbs += std::fabs(v);
    std::vector<double> first(buffers[t].begin(),
                              buffers[t].begin() + std::min(show, buffers[t].size()));
    outputs.push_back({{"tensor", k.tensors[t].name},
                       {"elements", buffers[t].size()},
                       {"sum", sum},
                       {"sumAbs", sumAbs},
                       {"first", first}});
    if (text) {
      std::cout << "  " << k.tensors[t].name << ": " << buffers[t].size() << " elements, sum "
                << sum << ", sum|x| " << sumAbs << ", first";
      for (double v : first)
        std::cout << " " << v;
      std::cout << "\n";
    }
  }
  return outputs;
}

// The figures of a native run (the JIT's, or the emulator's under qemu-user) into `result`,
// and printed when `text`.
void reportNative(const ir::Kernel &k, const hw::Target &target, const std::string &emulator,
                  double scheduleMs, const pipeline::Execution &run, bool text,
                  nlohmann::json &result) {
  std::vector<double> ms = run.milliseconds;
  std::sort(ms.begin(), ms.end());
  double best = ms.front(), median = ms[ms.size() / 2];
  unsigned threads = run.threads;
  double gflops = k.flopCount() / (best * 1e6);
  double peak = target.peakFlopsPerCycle() * target.clockHz * threads / 1e9;
  const backend::CompileTimes &times = run.llvm;
  double llvmMs = times.generateMs + times.optimizeMs + times.machineCodeMs;
  result["compileMilliseconds"] = {{"schedule", scheduleMs},
                                   {"llvm", llvmMs},
                                   {"llvmGenerate", times.generateMs},
                                   {"llvmOptimize", times.optimizeMs},
                                   {"llvmMachineCode", times.machineCodeMs}};
  result["threads"] = threads;
  result["milliseconds"] = {{"best", best}, {"median", median}, {"runs", ms.size()}};
  if (!emulator.empty()) {
    result["emulator"] = emulator; // the times are not the target's
  } else {
    result["gflops"] = gflops;
    if (peak > 0)
      result["peakFraction"] = gflops / peak;
  }
  if (!text)
    return;
  std::cout << k.name << " on " << target.name << ": compiled in "
            << formatDuration(scheduleMs + llvmMs) << " (map and schedule "
            << formatDuration(scheduleMs) << ", LLVM " << formatDuration(llvmMs) << "); ran "
            << ms.size() << "x on " << countOf(threads, "thread");
  if (!emulator.empty()) {
    std::cout << " under " << emulator << ": best " << formatDuration(best) << ", median "
              << formatDuration(median) << " (emulated: not the target's speed)\n";
    return;
  }
  std::cout << ": best " << formatDuration(best) << ", median " << formatDuration(median) << ", "
            << formatNumber(gflops) << " GFLOP/s";
  if (peak > 0)
    std::cout << ", " << formatNumber(100 * gflops / peak) << "% of the " << formatNumber(peak)
              << " GFLOP/s peak";
  std::cout << "\n";
}

// What became of one instance.
enum class Outcome { Ran, CheckFailed, Stop, Exit1 };

// One instance through the rest of the pipeline: schedule, code, execute, check, report.
Outcome runInstance(pipeline::Pipeline &p, pipeline::Executor &executor, const ir::Kernel &k,
                    const RunOptions &o, bool several, nlohmann::json &results) {
  bool text = o.common.format == Format::Text;
  using pipeline::ExecutorKind;
  ExecutorKind kind = executor.kind();
  // Checked before anything of the instance's size is allocated: an accelerator's described
  // memory first (what `compile` reports), then this machine's. The inputs, then (on a target)
  // the result and (with --check) the reference as doubles, and native buffers or the
  // simulator's memory in each tensor's own type.
  if (auto e = executor.admit(k)) {
    std::cerr << "isamap run: " << llvm::toString(std::move(e)) << "\n";
    return Outcome::Exit1;
  }
  bool onTarget = kind != ExecutorKind::Interpreter;
  if (auto message =
          exceedsMemory(k.name, runBytes(k, 1 + int(onTarget) + int(o.check), onTarget))) {
    std::cerr << "isamap run: " << *message << "\n";
    return Outcome::Exit1;
  }
  // Run in place; the inputs are kept only for the reference run of --check.
  interp::Buffers got = interp::randomInputs(k, o.seed);
  if (!o.inputs.empty()) {
    try {
      interp::readInputs(k, o.inputs, got);
    } catch (const interp::DataError &e) {
      std::cerr << "isamap run: " << e.what() << "\n";
      return Outcome::Exit1;
    }
  }
  interp::Buffers inputs = o.check ? got : interp::Buffers{};
  nlohmann::json result = {{"instance", k.name}};
  if (o.inputs.empty())
    result["seed"] = o.seed;
  else
    result["inputs"] = o.inputs;
  std::optional<pipeline::Scheduled> scheduled;
  pipeline::RunOptions run;
  run.repeat = o.repeat;
  run.threads = o.threads;
  run.tracePath = tracePathFor(o.trace, k.name, several);
  run.reference = o.reference;
  if (!onTarget)
    run.progress = progressOnStderr(k.name, "reference");
  std::optional<accel::Program> stream;
  if (onTarget) {
    scheduled = p.schedule(k);
    if (!scheduled)
      return Outcome::Stop;
    if (auto e = p.printCode({&*scheduled})) {
      std::cerr << "isamap run: " << llvm::toString(std::move(e)) << "\n";
      return Outcome::Exit1;
    }
    try {
      if (!o.stream.empty())
        stream = readStream(o.stream, k, *p.target());
    } catch (const accel::Error &e) {
      std::cerr << "isamap run: " << e.what() << "\n";
      return Outcome::Exit1;
    }
    run.stream = stream ? &*stream : nullptr;
  }
  auto ran = executor.run(k, scheduled ? &scheduled->schedule : nullptr, got, run);
  if (!ran) {
    std::cerr << "isamap run: " << llvm::toString(ran.takeError()) << "\n";
    return Outcome::Exit1;
  }
  if (kind == ExecutorKind::Interpreter) {
    if (text)
      std::cout << k.name << ": interpreted in " << formatDuration(ran->milliseconds[0]) << " ("
                << (o.inputs.empty() ? "seed " + std::to_string(o.seed) : "inputs " + o.inputs)
                << ")\n";
    result["milliseconds"] = ran->milliseconds[0];
  } else if (kind == ExecutorKind::Simulator) {
    result["compileMilliseconds"] = {{"schedule", scheduled->milliseconds}};
    reportSimulation(k, *p.target(), scheduled->schedule, *ran->simulation, run.tracePath, text,
                     result);
  } else {
    reportNative(k, *p.target(), executor.emulatorName(), scheduled->milliseconds, *ran, text,
                 result);
  }
  bool ok = !o.check || checkAgainstReference(k, inputs, got, o.reference, text, result);
  result["outputs"] = summariseOutputs(k, got, o.show, text);
  if (!o.outputs.empty()) {
    try {
      interp::writeOutputs(k, got, o.outputs);
    } catch (const interp::DataError &e) {
      std::cerr << "isamap run: " << e.what() << "\n";
      return Outcome::Exit1;
    }
    result["written"] = o.outputs;
    if (text)
      std::cout << "  outputs written to " << o.outputs << "\n";
  }
  results.push_back(result);
  return ok ? Outcome::Ran : Outcome::CheckFailed;
}

// The options that only make sense on some executors: a usage error (2) when given to another.
int checkExecutorOptions(const RunOptions &o, const hw::Target &target) {
  bool simulated = pipeline::executorFor(&target) == pipeline::ExecutorKind::Simulator;
  if (!simulated && (!o.trace.empty() || !o.stream.empty())) {
    std::cerr << "isamap run: --trace and --stream are for simulated targets; " << target.name
              << " runs natively\n";
    return 2;
  }
  if (simulated && (o.repeat > 1 || o.threads)) {
    std::cerr << "isamap run: " << target.name
              << " is simulated: its cycles do not vary, and it has no threads; drop "
                 "--repeat and --threads\n";
    return 2;
  }
  return 0;
}

int runInstances(RunOptions &o) {
  if (!o.interpret && o.target.empty()) {
    std::cerr << "isamap run: say how to run: --interpret, or --target NAME (e.g. host)\n";
    return 2;
  }
  pipeline::Options po;
  if (int usage =
          printAfterOption(o.printAfter, o.interpret ? pipeline::Stage::Sema : pipeline::Stage::Asm,
                           o.interpret ? "run --interpret" : "run", po.printAfter))
    return usage;
  po.target = o.target;
  po.threads = pipeline::requestedThreads(o.threads);
  po.schedule = scheduleOptions(o.search, o.seed);
  std::optional<pipeline::TuningDb> tuning;
  if (int failed = loadTuningDb(o.search.tuningDb, "run", tuning))
    return failed;
  po.tuning = tuning ? &*tuning : nullptr;
  Session session(sessionOptions(o.common));
  pipeline::Pipeline p(session, po);
  std::vector<ir::Kernel> kernels;
  if (int failed = loadInstances(p, o.file, o.selector, o.common.format, kernels, "run"))
    return failed;
  if ((!o.inputs.empty() || !o.outputs.empty()) && kernels.size() > 1) {
    std::cerr << "isamap run: --inputs and --outputs hold one instance's tensors, and " << o.file
              << " selects " << kernels.size() << "; name one with --instance\n";
    return 1;
  }
  if (!o.target.empty())
    if (int failed = checkTarget(p, o.common.format, "run",
                                 [&](const hw::Target &t) { return checkExecutorOptions(o, t); }))
      return failed;
  auto executor = p.executor();
  if (!executor) {
    std::cerr << "isamap run: " << llvm::toString(executor.takeError()) << "\n";
    return 1;
  }
  nlohmann::json results = nlohmann::json::array();
  bool failed = false;
  for (const auto &k : kernels) {
    Outcome outcome = runInstance(p, **executor, k, o, kernels.size() > 1, results);
    if (outcome == Outcome::Exit1)
      return 1;
    if (outcome == Outcome::Stop)
      break;
    failed = failed || outcome == Outcome::CheckFailed;
  }
  bool text = o.common.format == Format::Text;
  if (!text && !session.diagnostics().hasErrors())
    printJsonDocument({{"instances", results}});
  if (!session.diagnostics().all().empty())
    printDiagnostics(session, Format::Text);
  return session.diagnostics().hasErrors() || failed ? 1 : 0;
}

} // namespace

Action registerRun(CLI::App &app) {
  auto opts = std::make_shared<RunOptions>();
  auto *cmd = app.add_subcommand("run", "Run instances on seeded random inputs or NumPy files");
  cmd->add_option("file", opts->file, "The .isam file")->required();
  auto *interpret =
      cmd->add_flag("--interpret", opts->interpret, "Run with the reference interpreter");
  auto *target = cmd->add_option("-t,--target", opts->target,
                                 "Compile for this target and run natively (e.g. host)");
  interpret->excludes(target);
  cmd->add_flag("--check", opts->check,
                "Compare with the reference interpreter; exit 1 beyond tolerance")
      ->needs(target);
  cmd->add_option("--repeat", opts->repeat, "Timed runs (the best and the median are printed)")
      ->check(CLI::Range(size_t(1), size_t(1000000)))
      ->needs(target);
  cmd->add_option("--threads", opts->threads,
                  "Threads (default: ISAMAP_NUM_THREADS, else the "
                  "target's cores)")
      ->check(CLI::Range(1u, 4096u))
      ->needs(target);
  cmd->add_option("--trace", opts->trace,
                  "Simulated targets: write a Chrome trace of the run (one per instance: the "
                  "instance's name goes before the extension)")
      ->needs(target);
  cmd->add_option("--stream", opts->stream,
                  "Simulated targets: run this instruction stream (compile --emit=stream) "
                  "instead of the schedule's own")
      ->needs(target);
  cmd->add_option("--seed", opts->seed, "Seed of the random inputs and the search");
  cmd->add_option("--inputs", opts->inputs,
                  "Read the inputs from NumPy files instead: a directory of NAME.npy, or an "
                  ".npz archive (np.savez)")
      ->type_name("DIR|FILE.npz");
  cmd->add_option("--outputs", opts->outputs,
                  "Write the outputs as NumPy files: FILE.npz, else a directory of NAME.npy")
      ->type_name("DIR|FILE.npz");
  addReferenceOption(*cmd, opts->reference);
  cmd->add_option("--show", opts->show, "Output values printed per tensor");
  addCommonOptions(*cmd, opts->common);
  addReciprocalMathOption(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  addSearchOptions(*cmd, opts->search);
  addTuningDbOption(*cmd, opts->search.tuningDb);
  addPrintAfterOption(*cmd, opts->printAfter);
  return [opts]() { return runInstances(*opts); };
}

} // namespace isam::cli
