#include "pipeline/Pipeline.h"
#include "pipeline/Support.h"

#include "backends/accel/Emit.h"
#include "backends/llvm/Emit.h"
#include "pipeline/Outline.h"
#include "source/FileIo.h"

#include <chrono>
#include <iostream>

namespace isam::pipeline {

namespace {

std::vector<backend::KernelCode> kernelCode(const std::vector<const Scheduled *> &kernels) {
  std::vector<backend::KernelCode> code;
  for (const Scheduled *s : kernels)
    code.push_back({s->kernel, &s->schedule});
  return code;
}

backend::EmitKind emitKind(Output output) {
  switch (output) {
  case Output::Object:
    return backend::EmitKind::Object;
  case Output::Assembly:
    return backend::EmitKind::Assembly;
  case Output::LlvmIr:
    return backend::EmitKind::LLVM;
  case Output::Shared:
    return backend::EmitKind::Shared;
  case Output::Header:
  case Output::Stream: // an accelerator's: never asked of LLVM (canEmit)
    break;
  }
  return backend::EmitKind::Header;
}

// An accelerator's instruction stream for each kernel, streamed to `write` as the ops are
// emitted (the listing of a large schedule is gigabytes): the listings one after another, or
// the JSON form (an array of programs when there are several). Throws accel::Error.
void streamPrograms(const hw::Target &target, const std::vector<backend::KernelCode> &kernels,
                    bool json, const accel::TextOut &write) {
  bool several = kernels.size() > 1;
  if (json && several)
    write("[");
  for (size_t i = 0; i < kernels.size(); ++i) {
    const ir::Kernel &k = *kernels[i].kernel;
    if (i)
      write(json ? "," : "\n");
    if (json) {
      accel::JsonSink sink(k, target, write);
      accel::emit(k, target, *kernels[i].schedule, sink);
      sink.finish();
    } else {
      accel::ListingSink sink(k, target, write);
      accel::emit(k, target, *kernels[i].schedule, sink);
      sink.finish();
    }
  }
  if (json)
    write(several ? "]\n" : "\n");
}

std::string names(const std::vector<const Scheduled *> &kernels) {
  std::string out;
  for (const Scheduled *s : kernels)
    out += (out.empty() ? "" : ", ") + s->kernel->name;
  return out;
}

} // namespace

bool canEmit(const hw::Target &target, Output output) {
  bool stream = output == Output::Stream;
  return accel::isAccelerator(target) ? stream || output == Output::Assembly : !stream;
}

llvm::Expected<Code> codeText(const hw::Target &target,
                              const std::vector<backend::KernelCode> &kernels, Output output) {
  Code code;
  if (accel::isAccelerator(target)) {
    if (output != Output::Assembly)
      return fail("target '" + target.name +
                  "' names no LLVM triple: its code is an instruction stream (kind asm)");
    auto start = Clock::now();
    try {
      streamPrograms(target, kernels, false, [&](std::string_view s) { code.text += s; });
    } catch (const accel::Error &e) {
      return fail(std::string("no instruction stream: ") + e.what());
    }
    code.emitMs = msSince(start);
    return code;
  }
  if (output != Output::Assembly && output != Output::LlvmIr)
    return fail("only LLVM IR and assembly are text");
  auto text = backend::emitText(emitKind(output), target, kernels, &code.llvm);
  if (!text)
    return fail("code generation failed: " + llvm::toString(text.takeError()));
  code.text = std::move(*text);
  return code;
}

Pipeline::Pipeline(Session &session, Options options)
    : session_(session), options_(std::move(options)) {}

Pipeline::~Pipeline() = default;

std::ostream &Pipeline::printStream() const {
  return options_.printTo ? *options_.printTo : std::cerr;
}

void Pipeline::heading(Stage stage, const std::string &what) const {
  printStream() << "// ---- after " << stageName(stage) << ": " << what << " ----\n";
}

bool Pipeline::parse(const std::string &file) {
  bool read = session_.loadFile(file);
  if (read && printing(Stage::Parse))
    for (const ast::File *f : session_.files()) {
      heading(Stage::Parse, session_.sources().path(f->id));
      printStream() << outline(*f, session_.sources());
    }
  return read;
}

std::vector<ir::Kernel> Pipeline::instantiate(const InstanceSelector &selector) {
  std::vector<ir::Kernel> kernels = session_.instances(selector);
  if (printing(Stage::Sema) && !session_.diagnostics().hasErrors())
    for (const auto &k : kernels) {
      heading(Stage::Sema, k.name);
      printStream() << ir::printKernel(k);
    }
  return kernels;
}

const hw::Target *Pipeline::target() {
  if (!targetBuilt_ && (options_.givenTarget || !options_.target.empty())) {
    targetBuilt_ = true;
    if (options_.givenTarget)
      target_ = *options_.givenTarget;
    else
      target_ = session_.target(options_.target);
    if (target_ && options_.threads > 0)
      target_->cores = std::min(target_->cores, options_.threads);
    // Errors before (in the instances) or in its description leave no target; later ones (in
    // one instance's schedule) do not take it away from the next instance.
    if (session_.diagnostics().hasErrors())
      target_.reset();
    if (target_ && printing(Stage::Sema)) {
      heading(Stage::Sema, "target " + target_->name);
      printStream() << hw::printTarget(*target_);
    }
  }
  return target_ ? &*target_ : nullptr;
}

std::string Pipeline::unprintable() {
  const hw::Target *t = target();
  if (t && accel::isAccelerator(*t) && printing(Stage::LlvmIr))
    return "--print-after=llvm-ir: " + t->name +
           " has no LLVM backend (it names no triple); its code is printed after asm";
  return "";
}

std::optional<Scheduled> Pipeline::schedule(const ir::Kernel &kernel) {
  const hw::Target *t = target();
  if (!t)
    return std::nullopt;
  Scheduled out;
  out.kernel = &kernel;
  auto start = Clock::now();
  out.mappings = session_.mappings(kernel, *t, options_.map);
  if (printing(Stage::Mapping)) {
    heading(Stage::Mapping, kernel.name + " on " + t->name);
    for (const auto &m : out.mappings)
      printStream() << mapping::printMappings(m, kernel, *t) << "\n";
  }
  schedule::ScheduleOptions scheduleOptions = options_.schedule;
  if (options_.tuning) {
    if (const TuningRecord *record = options_.tuning->find(kernel, *t);
        record && options_.tunedSchedules)
      scheduleOptions.tuned = tunedChoices(*record);
    if (!correctionFitted_) {
      correction_ = options_.tuning->correction(*t);
      correctionFitted_ = true;
    }
    scheduleOptions.correction = correction_;
  }
  out.schedule = session_.schedule(kernel, *t, scheduleOptions, options_.map, &out.mappings);
  out.milliseconds = msSince(start);
  if (session_.diagnostics().hasErrors())
    return std::nullopt;
  if (printing(Stage::Schedule)) {
    heading(Stage::Schedule, kernel.name + " on " + t->name);
    printStream() << schedule::printSchedule(out.schedule, kernel, *t);
  }
  return out;
}

llvm::Error Pipeline::printCode(const std::vector<const Scheduled *> &kernels) {
  const hw::Target *t = target();
  if (!t || kernels.empty())
    return llvm::Error::success();
  for (auto [stage, output] :
       {std::pair{Stage::LlvmIr, Output::LlvmIr}, {Stage::Asm, Output::Assembly}}) {
    if (!printing(stage) || !canEmit(*t, output))
      continue;
    auto code = codeText(*t, kernelCode(kernels), output);
    if (!code)
      return code.takeError();
    heading(stage, names(kernels) + " on " + t->name);
    printStream() << code->text;
  }
  return llvm::Error::success();
}

llvm::Error Pipeline::emit(const std::vector<const Scheduled *> &kernels, Output output,
                           const std::string &path, backend::CompileTimes *times) {
  const hw::Target *t = target();
  if (!t)
    return fail("no target");
  if (!canEmit(*t, output))
    return fail(t->name + " cannot be written so");
  if (!accel::isAccelerator(*t))
    return backend::emitFile(emitKind(output), *t, kernelCode(kernels), path, times);
  OutputFile out;
  std::string error;
  if (!out.open(path, error))
    return fail(error);
  try {
    streamPrograms(*t, kernelCode(kernels), output == Output::Stream,
                   [&out](std::string_view text) {
                     if (!out.write(text))
                       throw accel::Error(out.error());
                   });
  } catch (const accel::Error &e) {
    return fail(e.what());
  }
  if (!out.commit(error))
    return fail(error);
  return llvm::Error::success();
}

llvm::Expected<Executor *> Pipeline::executor() {
  if (!executor_) {
    const hw::Target *t = target();
    if ((options_.givenTarget || !options_.target.empty()) && !t)
      return fail("no target");
    auto made = Executor::create(t);
    if (!made)
      return made.takeError();
    executor_ = std::move(*made);
  }
  return executor_.get();
}

} // namespace isam::pipeline
