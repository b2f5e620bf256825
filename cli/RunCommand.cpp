// `isamap run FILE`: executes the selected instances on seeded random inputs, either with the
// reference interpreter (--interpret) or as native code compiled for a target in process
// (--target NAME, ORC JIT; for another architecture, cross-linked and run under qemu-user, see
// backends/llvm/Cross.h, where the times are the emulator's), or, for an accelerator that
// exists only as its description, as an instruction stream on the simulator (AccelRun.h). The
// result can be checked against the interpreter (--check) and timed (--repeat). Prints a
// summary of each output.
#include "AccelRun.h"
#include "Commands.h"
#include "Common.h"
#include "Memory.h"
#include "backends/accel/Emit.h"
#include "backends/llvm/Cross.h"
#include "backends/llvm/Jit.h"
#include "backends/llvm/NativeBuffers.h"
#include "interp/Interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace isam::cli {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

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

// The thread count generated code will use: ISAMAP_NUM_THREADS if positive, else the cores.
unsigned threadsFor(const hw::Target &target) {
  const char *env = std::getenv("ISAMAP_NUM_THREADS");
  int n = env ? std::atoi(env) : 0;
  return n > 0 ? unsigned(n) : std::max(1u, target.cores);
}

// With `check`, compares `got` with the interpreter's run on `inputs`; false beyond tolerance.
bool checkAgainstReference(const ir::Kernel &k, const interp::Buffers &inputs,
                           const interp::Buffers &got, bool check, bool text,
                           nlohmann::json &result) {
  if (!check)
    return true;
  interp::Buffers ref = inputs;
  interp::run(k, ref);
  auto cmp = interp::compareOutputs(k, ref, got);
  double tol = interp::tolerance(k);
  bool ok = cmp.maxRelError <= tol;
  result["check"] = {{"maxAbsError", cmp.maxAbsError},
                     {"maxRelError", cmp.maxRelError},
                     {"tolerance", tol},
                     {"passed", ok}};
  if (text) {
    std::cout << "check " << k.name << ": max abs error " << cmp.maxAbsError << ", max rel error "
              << cmp.maxRelError << " (tolerance " << tol << ") ";
    if (ok)
      std::cout << "PASS\n";
    else
      std::cout << "FAIL at " << cmp.worstTensor << "[" << cmp.worstIndex << "]\n";
  }
  return ok;
}

} // namespace

Action registerRun(CLI::App &app) {
  struct Options {
    std::string file, target, trace, stream;
    CommonOptions common;
    SelectorOptions selector;
    SearchOptions search;
    bool interpret = false, check = false;
    uint64_t seed = 1;
    size_t show = 8, repeat = 1;
    unsigned threads = 0;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand("run", "Run instances on seeded random inputs");
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
  cmd->add_option("--show", opts->show, "Output values printed per tensor");
  addCommonOptions(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  addSearchOptions(*cmd, opts->search);
  return [opts]() {
    if (!opts->interpret && opts->target.empty()) {
      std::cerr << "isamap run: say how to run: --interpret, or --target NAME (e.g. host)\n";
      return 2;
    }
    bool text = opts->common.format == Format::Text;
    Session session(sessionOptions(opts->common));
    std::vector<ir::Kernel> kernels;
    if (int failed =
            loadInstances(session, opts->file, opts->selector, opts->common.format, kernels, "run"))
      return failed;
    std::optional<hw::Target> target;
    std::unique_ptr<backend::Jit> jit;
    std::unique_ptr<backend::CrossRunner> cross; // another architecture: under qemu-user
    bool simulated = false;                      // an accelerator: on the simulator
    if (!opts->target.empty()) {
      target = session.target(opts->target);
      if (session.diagnostics().hasErrors() || !target) {
        printDiagnostics(session, opts->common.format);
        return 1;
      }
      simulated = accel::isAccelerator(*target);
      if (!simulated && (!opts->trace.empty() || !opts->stream.empty())) {
        std::cerr << "isamap run: --trace and --stream are for simulated targets; " << target->name
                  << " runs natively\n";
        return 2;
      }
      if (simulated && (opts->repeat > 1 || opts->threads)) {
        std::cerr << "isamap run: " << target->name
                  << " is simulated: its cycles do not vary, and it has no threads; drop "
                     "--repeat and --threads\n";
        return 2;
      }
      if (simulated) {
        // The simulator needs no code generator.
      } else if (backend::isForeignTarget(*target)) {
        auto made = backend::CrossRunner::create(*target);
        if (!made) {
          std::cerr << "isamap run: " << llvm::toString(made.takeError()) << "\n";
          return 1;
        }
        cross = std::move(*made);
      } else {
        auto made = backend::Jit::create(*target);
        if (!made) {
          std::cerr << "isamap run: " << llvm::toString(made.takeError()) << "\n";
          return 1;
        }
        jit = std::move(*made);
      }
      if (opts->threads)
        setenv("ISAMAP_NUM_THREADS", std::to_string(opts->threads).c_str(), 1);
    }
    nlohmann::json results = nlohmann::json::array();
    bool failed = false;
    for (const auto &k : kernels) {
      // Checked before anything of the instance's size is allocated: an accelerator's
      // described memory first (what `compile` reports), then this machine's.
      if (simulated) {
        try {
          accel::checkTensorsFit(k, *target);
        } catch (const accel::Error &e) {
          std::cerr << "isamap run: " << k.name << " on " << target->name << ": " << e.what()
                    << "\n";
          return 1;
        }
      }
      // The inputs, then (on a target) the result and (with --check) the reference as doubles,
      // and native buffers or the simulator's memory in each tensor's own type.
      bool onTarget = jit || cross || simulated;
      double needed = runBytes(k, 1 + int(onTarget) + int(opts->check), onTarget);
      if (auto message = exceedsMemory(k.name, needed)) {
        std::cerr << "isamap run: " << *message << "\n";
        return 1;
      }
      interp::Buffers buffers = interp::randomInputs(k, opts->seed);
      nlohmann::json result = {{"instance", k.name}, {"seed", opts->seed}};
      if (!jit && !cross && !simulated) {
        auto start = Clock::now();
        interp::run(k, buffers);
        double ms = msSince(start);
        if (text)
          std::cout << k.name << ": interpreted in " << ms << " ms (seed " << opts->seed << ")\n";
        result["milliseconds"] = ms;
        result["outputs"] = summariseOutputs(k, buffers, opts->show, text);
        results.push_back(result);
        continue;
      }
      auto start = Clock::now();
      auto ks = session.schedule(k, *target, scheduleOptions(opts->search, opts->seed));
      if (session.diagnostics().hasErrors())
        break;
      double scheduleMs = msSince(start);
      if (simulated) {
        interp::Buffers got = buffers;
        result["compileMilliseconds"] = {{"schedule", scheduleMs}};
        try {
          std::optional<accel::Program> program;
          if (!opts->stream.empty())
            program = readStream(opts->stream, k, *target);
          simulateInstance(k, *target, ks, program ? &*program : nullptr, got,
                           tracePathFor(opts->trace, k.name, kernels.size() > 1), text, result);
        } catch (const accel::Error &e) {
          std::cerr << "isamap run: " << e.what() << "\n";
          return 1;
        }
        failed = !checkAgainstReference(k, buffers, got, opts->check, text, result) || failed;
        result["outputs"] = summariseOutputs(k, got, opts->show, text);
        results.push_back(result);
        continue;
      }
      backend::CompileTimes times;
      std::vector<double> ms;
      interp::Buffers got = buffers;
      if (cross) {
        // Compiled, linked and run under qemu-user; times are the emulator's (see Cross.h).
        auto ran = cross->run(k, ks, got, opts->repeat, &times);
        if (!ran) {
          std::cerr << "isamap run: " << k.name << ": " << llvm::toString(ran.takeError()) << "\n";
          return 1;
        }
        ms = std::move(*ran);
      } else {
        auto entry = jit->add(k, ks, &times);
        if (!entry) {
          std::cerr << "isamap run: " << k.name << ": " << llvm::toString(entry.takeError())
                    << "\n";
          return 1;
        }
        backend::NativeBuffers native = backend::toNative(k, buffers);
        for (size_t r = 0; r < opts->repeat; ++r) {
          auto at = Clock::now();
          (*entry)(native.args.data());
          ms.push_back(msSince(at));
        }
        backend::fromNative(k, native, got);
      }
      std::sort(ms.begin(), ms.end());
      double best = ms.front(), median = ms[ms.size() / 2];
      unsigned threads = threadsFor(*target);
      double gflops = k.flopCount() / (best * 1e6);
      double peak = target->peakFlopsPerCycle() * target->clockHz * threads / 1e9;
      double llvmMs = times.generateMs + times.optimizeMs + times.machineCodeMs;
      result["compileMilliseconds"] = {{"schedule", scheduleMs},
                                       {"llvm", llvmMs},
                                       {"llvmGenerate", times.generateMs},
                                       {"llvmOptimize", times.optimizeMs},
                                       {"llvmMachineCode", times.machineCodeMs}};
      result["threads"] = threads;
      result["milliseconds"] = {{"best", best}, {"median", median}, {"runs", ms.size()}};
      if (cross) {
        result["emulator"] = cross->emulatorName(); // the times are not the target's
      } else {
        result["gflops"] = gflops;
        if (peak > 0)
          result["peakFraction"] = gflops / peak;
      }
      if (text) {
        std::cout << k.name << " on " << target->name << ": compiled in " << (scheduleMs + llvmMs)
                  << " ms (map and schedule " << scheduleMs << ", LLVM " << llvmMs << "); ran "
                  << ms.size() << "x on " << threads << " thread" << (threads == 1 ? "" : "s");
        if (cross) {
          std::cout << " under " << cross->emulatorName() << ": best " << best << " ms, median "
                    << median << " ms (emulated: not the target's speed)\n";
        } else {
          std::cout << ": best " << best << " ms, median " << median << " ms, " << gflops
                    << " GFLOP/s";
          if (peak > 0)
            std::cout << ", " << 100 * gflops / peak << "% of the " << peak << " GFLOP/s peak";
          std::cout << "\n";
        }
      }
      failed = !checkAgainstReference(k, buffers, got, opts->check, text, result) || failed;
      result["outputs"] = summariseOutputs(k, got, opts->show, text);
      results.push_back(result);
    }
    if (!text && !session.diagnostics().hasErrors())
      std::cout << results.dump(2) << "\n";
    if (!session.diagnostics().all().empty())
      printDiagnostics(session, Format::Text);
    return session.diagnostics().hasErrors() || failed ? 1 : 0;
  };
}

} // namespace isam::cli
