// The GEMM suite: every selected DeepBench shape compiled by isamap (samples/gemm.isam's gemm,
// gemm_tn and gemm_nt kernels) and run against each loaded sgemm library, at each thread count,
// on the same operands.
#include "Suites.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace isam::bench {

void measureIsamap(Row &row, const CompiledKernel &ck, const std::vector<void *> &args, int threads,
                   const Options &options, Buffer &got, const Buffer &ref, size_t count,
                   const std::string &reference) {
  if (!ck.entry) {
    row.isamap.note = ck.error;
    row.check = "n/a (not compiled)";
    return;
  }
  // NaN first: an element the kernel never writes cannot pass the check by accident.
  if (options.check)
    fillNaN(got);
  row.isamap.timing = timeCalls([&] { ck.entry(args.data(), unsigned(threads)); }, options.repeat);
  row.isamap.measured = true;
  row.isamap.gflops = row.flops / row.isamap.timing.bestS / 1e9;
  if (!options.check) {
    row.check = "off";
  } else if (reference.empty()) {
    row.check = "n/a (no library result)";
  } else {
    double err = maxRelativeError(got.data(), ref.data(), count);
    char buf[96];
    row.checkFailed = !(err < checkThreshold(ck.kernel));
    std::snprintf(buf, sizeof buf, "%s %.1e vs %s", row.checkFailed ? "FAIL" : "ok", err,
                  reference.c_str());
    row.check = buf;
  }
}

namespace {

// OpenBLAS's pthreads workers keep spinning (2^28 cycles by default) after a call before they
// sleep; waiting that out keeps them from stealing the cores of whatever is timed next.
void letOpenBLASWorkersSleep() {
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

} // namespace

void runGemmSuite(Context &cx, const std::vector<GemmProblem> &problems, Report &report) {
  const Options &o = cx.options;
  const std::string file = o.sourceDir + "/samples/gemm.isam";
  for (const GemmProblem &p : problems) {
    CompiledKernel ck = compileInstance(
        file, {"", gemmKernelFor(p), {{"M", p.m}, {"N", p.n}, {"K", p.k}}}, cx.target, cx.executor);
    GemmShape shape{p.m, p.n, p.k, p.transA, p.transB};
    size_t mn = size_t(p.m * p.n);
    // Operands for this shape only, freed before the next (the largest take gigabytes).
    Buffer a(size_t(p.m * p.k)), b(size_t(p.k * p.n)), c(mn);
    Buffer ref(o.check ? mn : 0);
    fillRandom(a, 1);
    fillRandom(b, 2);
    // The kernel's operands by name, in its declaration order (inputs, then outputs).
    std::vector<void *> args;
    if (ck.entry)
      for (const auto &t : ck.kernel.tensors)
        if (t.role != ir::TensorRole::Local)
          args.push_back(t.name == "A" ? a.data() : t.name == "B" ? b.data() : c.data());

    for (int threads : o.threads) {
      Row row;
      row.label = p.label();
      row.layout = p.layout();
      row.threads = threads;
      row.flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
      row.bytes = 4.0 * double(p.m * p.k + p.k * p.n + p.m * p.n);
      row.rooflineGflops = cx.roofline.gflops(row.flops, row.bytes, threads);
      row.compiled = ck.entry != nullptr;
      row.compileMs = ck.compileMs();
      row.mapScheduleMs = ck.mapScheduleMs;
      row.times = ck.times;

      // The first library measured writes the reference result for the check.
      std::string reference;
      for (size_t i = 0; i < cx.libraries.size(); ++i) {
        Figure f;
        SgemmLibrary *lib = cx.libraries[i];
        if (!lib) {
          f.note = "not loaded";
        } else if (!lib->setThreads(threads)) {
          f.note = "cannot run on " + std::to_string(threads) + " threads";
        } else {
          float *out = o.check && reference.empty() ? ref.data() : c.data();
          f.timing = timeCalls([&] { lib->sgemm(shape, a.data(), b.data(), out); }, o.repeat);
          f.measured = true;
          f.gflops = row.flops / f.timing.bestS / 1e9;
          if (o.check && reference.empty())
            reference = lib->name();
          if (lib->name() == "openblas" && threads > 1)
            letOpenBLASWorkersSleep();
        }
        row.libraries.push_back(f);
      }

      measureIsamap(row, ck, args, threads, o, c, ref, mn, reference);
      report.add(std::move(row));
    }
  }
}

} // namespace isam::bench
