// `isamap compile FILE --target NAME --emit=KIND -o OUT`: native code for the selected
// instances, as an object, assembly, LLVM IR, a shared library or a C header; for an
// accelerator (a target with no LLVM triple), the instruction stream as a listing (asm) or as
// the JSON the simulator reads (stream).
#include "Commands.h"
#include "Common.h"
#include "pipeline/Pipeline.h"
#include "source/FileIo.h"

#include <filesystem>
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
  std::string header;  // also write the C header here, in the same run
  std::string depfile; // a Makefile-syntax list of every file read, for Ninja and Make
  CommonOptions common;
  SelectorOptions selector;
  SearchOptions search;
  std::vector<std::string> printAfter;
  uint64_t seed = 1;
  unsigned threads = 0; // 0: the target's cores
};

// What the target cannot emit is a usage error (2), found before any scheduling.
int checkEmit(CompileOptions &o, const hw::Target &target) {
  bool accelerator = pipeline::executorFor(&target) == pipeline::ExecutorKind::Simulator;
  if (o.emit.empty())
    o.emit = accelerator ? "asm" : "obj";
  bool header = o.header.empty() || pipeline::canEmit(target, pipeline::Output::Header);
  if (pipeline::canEmit(target, kKinds.at(o.emit)) && header)
    return 0;
  if (accelerator)
    std::cerr << "isamap compile: " << target.name
              << " has no LLVM backend (it names no triple), so no C header either: "
                 "--emit=asm writes its instruction listing, --emit=stream the stream's JSON\n";
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

void report(const CompileOptions &o, const std::vector<std::string> &written,
            const hw::Target &target, const std::vector<ir::Kernel> &kernels, double scheduleMs,
            const backend::CompileTimes &times) {
  // With `-o -` the code is stdout, so the report goes to stderr.
  std::ostream &out = o.output == "-" ? std::cerr : std::cout;
  double llvmMs = times.generateMs + times.optimizeMs + times.machineCodeMs;
  bool llvm = pipeline::executorFor(&target) != pipeline::ExecutorKind::Simulator;
  if (o.common.format == Format::Json) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto &k : kernels)
      names.push_back(k.name);
    nlohmann::json j = {{"output", written[0]},
                        {"emit", o.emit},
                        {"target", target.name},
                        {"kernels", names},
                        {"scheduleMilliseconds", scheduleMs}};
    if (llvm)
      j["llvmMilliseconds"] = llvmMs;
    if (!o.header.empty())
      j["header"] = o.header;
    if (!o.depfile.empty())
      j["depfile"] = o.depfile;
    printJsonDocument(j, out);
    return;
  }
  out << "wrote " << written[0] << (written.size() > 1 ? " and " + written[1] : "") << ": "
      << kernels.size() << " instance" << (kernels.size() == 1 ? "" : "s") << " for " << target.name
      << " (map and schedule " << scheduleMs << " ms";
  if (llvm)
    out << ", LLVM " << llvmMs << " ms";
  out << ")\n";
}

// A path in Makefile syntax, as Ninja reads depfiles: spaces and `#` escaped, `$` doubled.
std::string makeEscaped(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == '\\')
      out += '\\';
    out += c == '$' ? "$$" : std::string(1, c);
  }
  return out;
}

// `OUTPUTS: every file the compile read` (the kernel, its imports and the target's
// description), so that an edited description rebuilds exactly the kernels that import it.
llvm::Error writeDepfile(const std::string &path, const std::vector<std::string> &outputs,
                         const SourceManager &sources) {
  std::string text;
  for (const auto &o : outputs)
    text += (text.empty() ? "" : " ") + makeEscaped(o);
  text += ":";
  for (size_t f = 0; f < sources.fileCount(); ++f) {
    std::error_code ec;
    std::filesystem::path read = std::filesystem::absolute(sources.path(FileId(f)), ec);
    if (!ec && std::filesystem::is_regular_file(read, ec))
      text += " \\\n  " + makeEscaped(read.lexically_normal().string());
  }
  std::string error;
  if (!writeFileAtomically(path, text + "\n", error))
    return llvm::createStringError(std::errc::io_error, "cannot write the depfile '%s': %s",
                                   path.c_str(), error.c_str());
  return llvm::Error::success();
}

int compileInstances(CompileOptions &o) {
  pipeline::Options po;
  if (int usage = printAfterOption(o.printAfter, pipeline::Stage::Asm, "compile", po.printAfter))
    return usage;
  po.target = o.target;
  po.threads = o.threads;
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
  std::string output = o.output.empty()  ? defaultOutput(o.file, o.emit)
                       : o.output == "-" ? "/dev/stdout" // written through (source/FileIo.h)
                                         : o.output;
  backend::CompileTimes times;
  std::vector<std::string> outputs = {output};
  if (!o.header.empty())
    outputs.push_back(o.header);
  size_t written = 0; // of outputs, by this run
  llvm::Error failed = p.printCode(code);
  if (!failed && !(failed = p.emit(code, kKinds.at(o.emit), output, &times)))
    ++written;
  if (!failed && !o.header.empty() &&
      !(failed = p.emit(code, pipeline::Output::Header, o.header, nullptr)))
    ++written;
  if (!failed && !o.depfile.empty())
    failed = writeDepfile(o.depfile, outputs, session.sources());
  if (failed) {
    std::cerr << "isamap compile: " << llvm::toString(std::move(failed)) << "\n";
    std::error_code ignored; // nothing half-written: not the object without its header
    for (size_t i = 0; i < written; ++i)
      std::filesystem::remove(outputs[i], ignored);
    return 1;
  }
  report(o, outputs, *target, kernels, scheduleMs, times);
  if (!session.diagnostics().all().empty())
    printDiagnostics(session, Format::Text);
  return 0;
}

} // namespace

Action registerCompile(CLI::App &app) {
  auto opts = std::make_shared<CompileOptions>();
  auto *cmd = app.add_subcommand("compile", "Compile instances to native code");
  cmd->add_option("file", opts->file, "The .isam file")->required();
  cmd->add_option(
         "-t,--target", opts->target,
         "Target: a name (host, x86_avx512, ...; isamap targets lists them) or a description file")
      ->required();
  cmd->add_option("--emit", opts->emit,
                  "What to write: obj (the default), asm, llvm, shared or header; for an "
                  "accelerator, asm (the default: the instruction listing) or stream (its JSON "
                  "form)")
      ->check(CLI::IsMember({"obj", "asm", "llvm", "shared", "header", "stream"}));
  cmd->add_option("-o,--output", opts->output,
                  "Output file, - for stdout (default: FILE's stem and the usual extension, in "
                  "the current directory)");
  cmd->add_option("--header", opts->header,
                  "Also write the C header of the same code to this file, in the same run");
  cmd->add_option("--depfile", opts->depfile,
                  "Write the files this compile read (the kernel, its imports, the target's "
                  "description) as a Makefile rule for Ninja or Make");
  cmd->add_option("--seed", opts->seed, "Seed of the schedule search");
  addCommonOptions(*cmd, opts->common);
  addReciprocalMathOption(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  addSearchOptions(*cmd, opts->search);
  addTuningDbOption(*cmd, opts->search.tuningDb);
  addScheduleThreadsOption(*cmd, opts->threads);
  addPrintAfterOption(*cmd, opts->printAfter);
  return [opts]() { return compileInstances(*opts); };
}

} // namespace isam::cli
