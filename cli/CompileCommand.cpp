// `isamap compile FILE --target NAME --emit=KIND -o OUT`: native code for the selected
// instances, as an object, assembly, LLVM IR, a shared library or a C header; for an
// accelerator (a target with no LLVM triple), the instruction stream as a listing (asm) or as
// the JSON the simulator reads (stream).
#include "Commands.h"
#include "Common.h"
#include "backends/accel/Emit.h"
#include "backends/llvm/Emit.h"
#include "source/FileIo.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace isam::cli {

namespace {

const std::map<std::string, backend::EmitKind> kKinds = {{"obj", backend::EmitKind::Object},
                                                         {"asm", backend::EmitKind::Assembly},
                                                         {"llvm", backend::EmitKind::LLVM},
                                                         {"shared", backend::EmitKind::Shared},
                                                         {"header", backend::EmitKind::Header}};

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

} // namespace

Action registerCompile(CLI::App &app) {
  struct Options {
    std::string file, target, emit, output;
    CommonOptions common;
    SelectorOptions selector;
    SearchOptions search;
    uint64_t seed = 1;
  };
  auto opts = std::make_shared<Options>();
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
  addSelectorOptions(*cmd, opts->selector);
  addSearchOptions(*cmd, opts->search);
  return [opts]() {
    Session session(sessionOptions(opts->common));
    std::vector<ir::Kernel> kernels;
    if (int failed = loadInstances(session, opts->file, opts->selector, opts->common.format,
                                   kernels, "compile"))
      return failed;
    auto target = session.target(opts->target);
    if (session.diagnostics().hasErrors() || !target) {
      printDiagnostics(session, opts->common.format);
      return 1;
    }
    bool accelerator = accel::isAccelerator(*target);
    if (opts->emit.empty())
      opts->emit = accelerator ? "asm" : "obj";
    // What the target cannot emit is a usage error, found before any scheduling.
    if (accelerator && opts->emit != "asm" && opts->emit != "stream") {
      std::cerr << "isamap compile: " << target->name
                << " has no LLVM backend (it names no triple): --emit=asm writes its "
                   "instruction listing, --emit=stream the stream's JSON\n";
      return 2;
    }
    if (!accelerator && !kKinds.count(opts->emit)) {
      std::cerr << "isamap compile: --emit=" << opts->emit << " is an accelerator's instruction "
                << "stream, and " << target->name
                << " compiles to native code: use --emit=obj, asm, llvm, shared or header\n";
      return 2;
    }
    auto start = std::chrono::steady_clock::now();
    std::vector<schedule::KernelSchedule> schedules;
    for (const auto &k : kernels)
      schedules.push_back(session.schedule(k, *target, scheduleOptions(opts->search, opts->seed)));
    if (session.diagnostics().hasErrors()) {
      printDiagnostics(session, opts->common.format);
      return 1;
    }
    double scheduleMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::vector<backend::KernelCode> code;
    for (size_t i = 0; i < kernels.size(); ++i)
      code.push_back({&kernels[i], &schedules[i]});
    std::string output = opts->output;
    if (output.empty()) {
      std::string stem = opts->file.substr(opts->file.find_last_of('/') + 1);
      stem = stem.substr(0, stem.rfind(".isam") == std::string::npos ? stem.size()
                                                                     : stem.rfind(".isam"));
      output = stem + extension(opts->emit);
    }
    backend::CompileTimes times;
    if (accel::isAccelerator(*target)) {
      // Streamed to the file as the ops are emitted: the listing of a large schedule is
      // gigabytes (the whole program in memory was many times more).
      OutputFile out;
      std::string error;
      if (!out.open(output, error)) {
        std::cerr << "isamap compile: " << error << "\n";
        return 1;
      }
      accel::TextOut write = [&out](std::string_view text) {
        if (!out.write(text))
          throw accel::Error(out.error());
      };
      try {
        bool json = opts->emit == "stream", several = kernels.size() > 1;
        if (json && several)
          write("[");
        for (size_t i = 0; i < kernels.size(); ++i) {
          if (i)
            write(json ? "," : "\n");
          if (json) {
            accel::JsonSink sink(kernels[i], *target, write);
            accel::emit(kernels[i], *target, schedules[i], sink);
            sink.finish();
          } else {
            accel::ListingSink sink(kernels[i], *target, write);
            accel::emit(kernels[i], *target, schedules[i], sink);
            sink.finish();
          }
        }
        if (json)
          write(several ? "]\n" : "\n");
      } catch (const accel::Error &e) {
        std::cerr << "isamap compile: " << e.what() << "\n";
        return 1;
      }
      if (!out.commit(error)) {
        std::cerr << "isamap compile: " << error << "\n";
        return 1;
      }
    } else if (auto e = backend::emitFile(kKinds.at(opts->emit), *target, code, output, &times)) {
      std::cerr << "isamap compile: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
    double llvmMs = times.generateMs + times.optimizeMs + times.machineCodeMs;
    bool llvm = !accel::isAccelerator(*target);
    if (opts->common.format == Format::Json) {
      nlohmann::json names = nlohmann::json::array();
      for (const auto &k : kernels)
        names.push_back(k.name);
      nlohmann::json j = {{"output", output},
                          {"emit", opts->emit},
                          {"target", target->name},
                          {"kernels", names},
                          {"scheduleMilliseconds", scheduleMs}};
      if (llvm)
        j["llvmMilliseconds"] = llvmMs;
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << "wrote " << output << ": " << kernels.size() << " instance"
                << (kernels.size() == 1 ? "" : "s") << " for " << target->name
                << " (map and schedule " << scheduleMs << " ms";
      if (llvm)
        std::cout << ", LLVM " << llvmMs << " ms";
      std::cout << ")\n";
    }
    if (!session.diagnostics().all().empty())
      printDiagnostics(session, Format::Text);
    return 0;
  };
}

} // namespace isam::cli
