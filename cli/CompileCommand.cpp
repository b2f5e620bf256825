// `isamap compile FILE --target NAME --emit=KIND -o OUT`: native code for the selected
// instances, as an object, assembly, LLVM IR, a shared library or a C header; for an
// accelerator (a target with no LLVM triple), the instruction stream as a listing (asm) or as
// the JSON the simulator reads (stream).
#include "Commands.h"
#include "Common.h"
#include "pipeline/Pipeline.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace isam::cli {

namespace {

const std::map<std::string, pipeline::Output> kKinds = {
    {"obj", pipeline::Output::Object},    {"asm", pipeline::Output::Assembly},
    {"llvm", pipeline::Output::LlvmIr},   {"shared", pipeline::Output::Shared},
    {"header", pipeline::Output::Header}, {"stream", pipeline::Output::Stream}};

const char *extension(const std::string &kind) {
  if (kind == "asm")
    return ".s";
  if (kind == "llvm")
    return ".ll";
  if (kind == "shared")
    return ".so";
  if (kind == "header")
    return ".h";
  if (kind == "stream")
    return ".stream.json";
  return ".o";
}

struct CompileOptions {
  std::string file, target, emit, output;
  CommonOptions common;
  SelectorOptions selector;
  SearchOptions search;
  std::vector<std::string> printAfter;
  uint64_t seed = 1;
};

// What the target cannot emit is a usage error (2), found before any scheduling.
int checkEmit(CompileOptions &o, const hw::Target &target) {
  bool accelerator = pipeline::executorFor(&target) == pipeline::ExecutorKind::Simulator;
  if (o.emit.empty())
    o.emit = accelerator ? "asm" : "obj";
  if (pipeline::canEmit(target, kKinds.at(o.emit)))
    return 0;
  if (accelerator)
    std::cerr << "isamap compile: " << target.name
              << " has no LLVM backend (it names no triple): --emit=asm writes its "
                 "instruction listing, --emit=stream the stream's JSON\n";
  else
    std::cerr << "isamap compile: --emit=" << o.emit << " is an accelerator's instruction "
              << "stream, and " << target.name
              << " compiles to native code: use --emit=obj, asm, llvm, shared or header\n";
  return 2;
}

// FILE's stem and the usual extension of what is written, in the current directory.
std::string defaultOutput(const std::string &file, const std::string &emit) {
  std::string stem = file.substr(file.find_last_of('/') + 1);
  stem =
      stem.substr(0, stem.rfind(".isam") == std::string::npos ? stem.size() : stem.rfind(".isam"));
  return stem + extension(emit);
}

void report(const CompileOptions &o, const std::string &output, const hw::Target &target,
            const std::vector<ir::Kernel> &kernels, double scheduleMs,
            const backend::CompileTimes &times) {
  double llvmMs = times.generateMs + times.optimizeMs + times.machineCodeMs;
  bool llvm = pipeline::executorFor(&target) != pipeline::ExecutorKind::Simulator;
  if (o.common.format == Format::Json) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto &k : kernels)
      names.push_back(k.name);
    nlohmann::json j = {{"output", output},
                        {"emit", o.emit},
                        {"target", target.name},
                        {"kernels", names},
                        {"scheduleMilliseconds", scheduleMs}};
    if (llvm)
      j["llvmMilliseconds"] = llvmMs;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << "wrote " << output << ": " << kernels.size() << " instance"
            << (kernels.size() == 1 ? "" : "s") << " for " << target.name << " (map and schedule "
            << scheduleMs << " ms";
  if (llvm)
    std::cout << ", LLVM " << llvmMs << " ms";
  std::cout << ")\n";
}

int compileInstances(CompileOptions &o) {
  pipeline::Options po;
  if (int usage = printAfterOption(o.printAfter, pipeline::Stage::Asm, "compile", po.printAfter))
    return usage;
  po.target = o.target;
  po.schedule = scheduleOptions(o.search, o.seed);
  std::optional<pipeline::TuningDb> tuning;
  if (int failed = loadTuningDb(o.search.tuningDb, "compile", tuning))
    return failed;
  po.tuning = tuning ? &*tuning : nullptr;
  Session session(sessionOptions(o.common));
  pipeline::Pipeline p(session, po);
  std::vector<ir::Kernel> kernels;
  if (int failed = loadInstances(p, o.file, o.selector, o.common.format, kernels, "compile"))
    return failed;
  if (int failed = checkTarget(p, o.common.format, "compile",
                               [&](const hw::Target &t) { return checkEmit(o, t); }))
    return failed;
  const hw::Target *target = p.target();
  std::vector<pipeline::Scheduled> scheduled;
  double scheduleMs = 0;
  for (const auto &k : kernels) // each one, so that every instance's errors are reported
    if (auto s = p.schedule(k)) {
      scheduleMs += s->milliseconds;
      scheduled.push_back(std::move(*s));
    }
  if (session.diagnostics().hasErrors()) {
    printDiagnostics(session, o.common.format);
    return 1;
  }
  std::vector<const pipeline::Scheduled *> code;
  for (const auto &s : scheduled)
    code.push_back(&s);
  std::string output = o.output.empty() ? defaultOutput(o.file, o.emit) : o.output;
  backend::CompileTimes times;
  llvm::Error failed = p.printCode(code);
  if (!failed)
    failed = p.emit(code, kKinds.at(o.emit), output, &times);
  if (failed) {
    std::cerr << "isamap compile: " << llvm::toString(std::move(failed)) << "\n";
    return 1;
  }
  report(o, output, *target, kernels, scheduleMs, times);
  if (!session.diagnostics().all().empty())
    printDiagnostics(session, Format::Text);
  return 0;
}

} // namespace

Action registerCompile(CLI::App &app) {
  auto opts = std::make_shared<CompileOptions>();
  auto *cmd = app.add_subcommand("compile", "Compile instances to native code");
  cmd->add_option("file", opts->file, "The .isam file")->required();
  cmd->add_option("-t,--target", opts->target, "Target name (e.g. host, x86_avx512, arm_neon)")
      ->required();
  cmd->add_option("--emit", opts->emit,
                  "What to write: obj (the default), asm, llvm, shared or header; for an "
                  "accelerator, asm (the default: the instruction listing) or stream (its JSON "
                  "form)")
      ->check(CLI::IsMember({"obj", "asm", "llvm", "shared", "header", "stream"}));
  cmd->add_option("-o,--output", opts->output,
                  "Output file (default: FILE's stem and the "
                  "usual extension, in the current directory)");
  cmd->add_option("--seed", opts->seed, "Seed of the schedule search");
  addCommonOptions(*cmd, opts->common);
  addReciprocalMathOption(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  addSearchOptions(*cmd, opts->search);
  addTuningDbOption(*cmd, opts->search.tuningDb);
  addPrintAfterOption(*cmd, opts->printAfter);
  return [opts]() { return compileInstances(*opts); };
}

} // namespace isam::cli
