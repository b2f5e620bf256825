#include "Runner.h"

#include "backends/accel/Emit.h"
#include "backends/accel/Simulator.h"
#include "backends/llvm/Calibrate.h"
#include "backends/llvm/Cross.h"
#include "backends/llvm/Jit.h"
#include "backends/llvm/NativeBuffers.h"
#include "driver/Session.h"
#include "interp/Interpreter.h"
#include "interp/RowInterpreter.h"
#include "schedule/Execute.h"
#include "support/Reference.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unistd.h>

namespace isam::difftest {

const char *statusName(Status s) {
  switch (s) {
  case Status::Pass:
    return "pass";
  case Status::Mismatch:
    return "mismatch";
  case Status::Error:
    return "error";
  case Status::Exception:
    return "exception";
  case Status::Crash:
    return "crash";
  case Status::Timeout:
    return "timeout";
  case Status::Unsupported:
    return "unsupported";
  }
  return "?";
}

bool isFinding(Status s) {
  return s != Status::Pass && s != Status::Unsupported;
}

namespace {

std::string num(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

// Compares `got` with the reference; fills `e` with a mismatch when beyond tolerance.
void compare(const ir::Kernel &k, const interp::Buffers &ref, const interp::Buffers &got,
             Execution &e) {
  auto cmp = interp::compareOutputs(k, ref, got);
  double tol = interp::tolerance(k);
  if (cmp.maxRelError <= tol && std::isfinite(cmp.maxAbsError))
    return;
  e.status = Status::Mismatch;
  size_t t = size_t(k.tensorIndex(cmp.worstTensor));
  e.detail = "max rel error " + num(cmp.maxRelError) + " (tolerance " + num(tol) + ") at " +
             cmp.worstTensor + "[" + std::to_string(cmp.worstIndex) + "]: got " +
             num(got[t][cmp.worstIndex]) + ", want " + num(ref[t][cmp.worstIndex]);
}

schedule::ScheduleOptions scheduleOptions(const RunOptions &o) {
  schedule::ScheduleOptions s;
  s.budget.candidates = o.scheduleCandidates;
  s.budget.milliseconds = 1e9; // the candidate budget, never the clock, stops the search
  return s;
}

} // namespace

KernelOutcome
runKernel(const std::string &text, const std::string &instance, const RunOptions &options,
          const std::function<void(const std::string &, const std::string &)> &progress) {
  KernelOutcome out;
  auto step = [&](const std::string &t, const std::string &e) {
    if (progress)
      progress(t, e);
  };
  SessionOptions sessionOptions;
  sessionOptions.hostMeter = backend::measureFmaGflops;
  Session session(sessionOptions);
  session.loadText("difftest.isam", text);
  session.checkAll();
  std::vector<ir::Kernel> kernels;
  if (!session.diagnostics().hasErrors())
    kernels = session.instances({instance, "", {}});
  if (session.diagnostics().hasErrors() || kernels.size() != 1) {
    out.rejected = true;
    out.rejection = test::renderDiagnostics(session);
    return out;
  }
  const ir::Kernel &k = kernels[0];
  if (options.fault != RunOptions::Fault::None) {
    step("(test)", "fault");
    if (options.fault == RunOptions::Fault::Abort)
      std::abort();
    for (;;)
      pause();
  }
  interp::Buffers inputs = interp::randomInputs(k, options.inputSeed);
  // The reference runs the kernel as written, so that the staging of padded reads is checked
  // too.
  test::Reference reference =
      test::referenceAsWritten("difftest.isam", text, {instance, "", {}}, k, inputs);
  if (!reference.buffers) {
    out.rejected = true;
    out.rejection = reference.diagnostics;
    return out;
  }
  const interp::Buffers &ref = *reference.buffers;
  for (size_t t = 0; t < k.tensors.size(); ++t)
    if (k.tensors[t].role == ir::TensorRole::Output)
      for (size_t i = 0; i < ref[t].size(); ++i)
        if (!std::isfinite(ref[t][i])) {
          out.unusable = true;
          out.unusableWhy = "the reference has " + num(ref[t][i]) + " at " + k.tensors[t].name +
                            "[" + std::to_string(i) + "]";
          return out;
        }

  // The row interpreter (what --check uses) gives the point interpreter's bits exactly.
  step("reference", "rows");
  {
    Execution e{"reference", "rows", Status::Pass, ""};
    try {
      interp::Buffers points = inputs, rows = inputs;
      interp::run(k, points);
      interp::runRows(k, rows, 2);
      for (size_t t = 0; t < k.tensors.size() && e.status == Status::Pass; ++t)
        for (size_t i = 0; i < rows[t].size(); ++i)
          if (std::memcmp(&rows[t][i], &points[t][i], sizeof(double)) != 0) {
            e.status = Status::Mismatch;
            e.detail = k.tensors[t].name + "[" + std::to_string(i) + "]: rows give " +
                       num(rows[t][i]) + ", points " + num(points[t][i]);
            break;
          }
    } catch (const std::exception &x) {
      e.status = Status::Exception, e.detail = x.what();
    }
    out.executions.push_back(e);
  }

  for (const auto &name : options.targets) {
    auto target = session.target(name);
    if (!target) {
      out.executions.push_back({name, "target", Status::Error, test::renderDiagnostics(session)});
      continue;
    }
    bool accelerator = accel::isAccelerator(*target);
    bool foreign = !accelerator && backend::isForeignTarget(*target);
    if (foreign && !options.cross)
      continue;
    const char *native = accelerator ? "simulator" : foreign ? "qemu" : "jit";

    step(name, "map+schedule");
    schedule::KernelSchedule ks;
    try {
      size_t before = session.diagnostics().all().size();
      ks = session.schedule(k, *target, scheduleOptions(options));
      bool errors = false;
      std::string why;
      const auto &all = session.diagnostics().all();
      for (size_t i = before; i < all.size(); ++i)
        if (all[i].severity == Severity::Error)
          errors = true, why += renderDiagnostic(all[i], session.sources()) + "\n";
      if (errors || ks.statements.size() != k.statements.size()) {
        out.executions.push_back({name, "schedule", Status::Error, "scheduling failed: " + why});
        continue;
      }
    } catch (const std::exception &e) {
      out.executions.push_back({name, "schedule", Status::Exception, e.what()});
      continue;
    }

    if (options.scheduleIr) {
      step(name, "schedule");
      Execution e{name, "schedule", Status::Pass, ""};
      try {
        interp::Buffers got = inputs;
        schedule::execute(ks, k, *target, got);
        compare(k, ref, got, e);
      } catch (const std::exception &x) {
        e.status = Status::Exception, e.detail = x.what();
      }
      out.executions.push_back(e);
    }

    step(name, native);
    Execution e{name, native, Status::Pass, ""};
    try {
      interp::Buffers got = inputs;
      if (accelerator) {
        accel::simulate(k, *target, ks, &got);
        compare(k, ref, got, e);
      } else if (foreign) {
        auto runner = backend::CrossRunner::create(*target);
        if (!runner) {
          e.status = Status::Unsupported, e.detail = llvm::toString(runner.takeError());
        } else if (auto ran = (*runner)->run(k, ks, got, 1); !ran) {
          e.status = Status::Error, e.detail = llvm::toString(ran.takeError());
        } else {
          compare(k, ref, got, e);
        }
      } else {
        auto jit = backend::Jit::create(*target);
        if (!jit) {
          // This CPU cannot run the target's code: not a finding.
          e.status = Status::Unsupported, e.detail = llvm::toString(jit.takeError());
        } else if (auto entry = (*jit)->add(k, ks); !entry) {
          e.status = Status::Error, e.detail = llvm::toString(entry.takeError());
        } else {
          backend::NativeBuffers nb = backend::toNative(k, inputs);
          (*entry)(nb.args.data());
          backend::fromNative(k, nb, got);
          compare(k, ref, got, e);
        }
      }
    } catch (const std::exception &x) {
      e.status = Status::Exception, e.detail = x.what();
    }
    out.executions.push_back(e);
  }
  return out;
}

} // namespace isam::difftest
