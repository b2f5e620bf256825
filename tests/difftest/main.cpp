// isamap_difftest: random kernels (Generator.h) run on every executor and target this machine
// has (Runner.h), each in a supervised child process (Supervisor.h), compared with the
// reference interpreter; failing kernels are shrunk (Minimizer.h) and written out.
//
// Kernel i of a campaign is generated from seed SEED + i (inputs from the same seed), so
// `--seed S --count 1` reproduces one kernel alone. Exit status: 0 when every kernel passed,
// 1 when there were findings, 2 on usage errors.
#include "Generator.h"
#include "Minimizer.h"
#include "Supervisor.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace isam::difftest;

namespace {

// How a kernel failed: what the minimiser must preserve.
struct Signature {
  std::string kind; // a Status name, "rejected" or "unusable"
  std::string target, executor;
  std::string code; // rejected: the first error code (E0304, ...)

  bool operator<(const Signature &o) const {
    return std::tie(kind, target, executor, code) < std::tie(o.kind, o.target, o.executor, o.code);
  }
  bool operator==(const Signature &o) const { return !(*this < o) && !(o < *this); }
  std::string text() const {
    return kind == "rejected" || kind == "unusable" ? kind + (code.empty() ? "" : " " + code)
                                                    : target + " " + executor + " " + kind;
  }
};

// The error codes of a rejection, sorted and unique ("E0304 E0408"): a minimised rejection
// must keep exactly these, not trade them for others.
std::string errorCodes(const std::string &diagnostics) {
  std::set<std::string> codes;
  for (size_t at = diagnostics.find("error["); at != std::string::npos;
       at = diagnostics.find("error[", at + 1)) {
    auto end = diagnostics.find(']', at);
    codes.insert(diagnostics.substr(at + 6, end - at - 6));
  }
  std::string out;
  for (const auto &c : codes)
    out += (out.empty() ? "" : " ") + c;
  return out;
}

// An error's or a crash's message without its numbers and paths (a link failure is not a
// qemu abort, though both are errors); empty for mismatches and timeouts, whose details differ
// from kernel to kernel.
std::string errorClass(const Execution &e) {
  if (e.status != Status::Error && e.status != Status::Exception && e.status != Status::Crash)
    return "";
  std::string line = e.detail.substr(0, e.detail.find('\n')), out;
  for (char c : line)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      out += c;
  return out.substr(0, 60);
}

struct Failure {
  Signature sig;
  std::string detail;
};

std::vector<Failure> failures(const KernelOutcome &o) {
  std::vector<Failure> out;
  if (o.rejected)
    out.push_back({{"rejected", "check", "check", errorCodes(o.rejection)}, o.rejection});
  if (o.unusable)
    out.push_back({{"unusable", "interpreter", "reference", ""}, o.unusableWhy});
  for (const auto &e : o.executions)
    if (isFinding(e.status))
      out.push_back({{statusName(e.status), e.target, e.executor, errorClass(e)}, e.detail});
  return out;
}

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty())
      out.push_back(item);
  return out;
}

std::string firstLine(const std::string &s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

std::string commented(const std::string &s) {
  std::string out, line;
  std::stringstream in(s);
  while (std::getline(in, line))
    out += "//   " + line + "\n";
  return out;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Differential testing of isamap's executors on random kernels"};
  uint64_t seed = 1;
  size_t count = 100, crossEvery = 25, minimizeTries = 300, minimizePerKind = 4;
  std::string targetList = "host,x86_avx2,x86_avx512,generic,systolic16,arm_neon,riscv_rvv";
  std::string outDir;
  double timeout = 120;
  bool minimizeFlag = false, printKernels = false, noScheduleIr = false;
  std::vector<std::string> disabled, enabled;
  Features features;
  app.add_option("--seed", seed, "Seed of the first kernel (kernel i uses SEED + i)");
  app.add_option("--count", count, "Kernels to generate and run")
      ->check(CLI::Range(size_t(1), size_t(100000000)));
  app.add_option("--targets", targetList, "Comma-separated targets to run on");
  app.add_option("--cross-every", crossEvery,
                 "Run targets of another architecture (under qemu, slow) on every Nth kernel; "
                 "0: never");
  app.add_option("--timeout", timeout, "Seconds allowed per kernel (all its executions)")
      ->check(CLI::Range(1.0, 86400.0));
  app.add_flag("--minimize", minimizeFlag, "Shrink failing kernels before reporting them");
  app.add_option("--minimize-tries", minimizeTries, "Candidates tried per minimisation");
  app.add_option("--minimize-per-kind", minimizePerKind,
                 "Failing kernels minimised per kind of failure (target, executor, status)");
  app.add_option("--out", outDir, "Write each failing kernel (minimised with --minimize) here");
  app.add_flag("--print", printKernels, "Print every generated kernel");
  app.add_flag("--no-schedule-ir", noScheduleIr, "Skip the schedule-IR interpreter");
  app.add_option("--max-statements", features.maxStatements, "Statements per kernel (1-4)")
      ->check(CLI::Range(1, 4));
  std::string featureHelp;
  for (const auto &n : Features::names())
    featureHelp += (featureHelp.empty() ? "" : ", ") + n;
  app.add_option("--disable", disabled, "Generator features to switch off: " + featureHelp)
      ->delimiter(',');
  app.add_option("--enable", enabled, "Generator features to switch on (all are by default)")
      ->delimiter(',');
  // --no-self-read etc., the same as --disable self-read.
  std::map<std::string, bool> noFlags;
  for (const auto &n : Features::names())
    app.add_flag("--no-" + n, noFlags[n], "Same as --disable " + n);
  std::string fault;
  app.add_option("--inject-fault", fault,
                 "For the tester's own tests: every kernel aborts or hangs after its check")
      ->check(CLI::IsMember({"abort", "hang"}))
      ->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return 2; // usage errors
  }
  for (const auto &[n, on] : noFlags)
    if (on)
      disabled.push_back(n);
  for (const auto &n : disabled)
    if (!features.set(n, false)) {
      std::cerr << "isamap_difftest: unknown feature '" << n << "' (known: " << featureHelp
                << ")\n";
      return 2;
    }
  for (const auto &n : enabled)
    if (!features.set(n, true)) {
      std::cerr << "isamap_difftest: unknown feature '" << n << "' (known: " << featureHelp
                << ")\n";
      return 2;
    }
  std::vector<std::string> targets = split(targetList);
  if (targets.empty()) {
    std::cerr << "isamap_difftest: --targets names no target\n";
    return 2;
  }
  if (!outDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(outDir, ec);
    if (ec) {
      std::cerr << "isamap_difftest: cannot create " << outDir << ": " << ec.message() << "\n";
      return 2;
    }
  }

  // The options that shape generation, for the reproduce line of a finding.
  const std::string generatorFlags = features.flags();
  auto start = std::chrono::steady_clock::now();
  std::cout << "isamap_difftest: seeds " << seed << ".." << seed + count - 1 << " on " << targetList
            << " (" << features.describe() << ")\n";
  std::vector<Generated> kernels;
  std::vector<Job> jobs;
  for (size_t i = 0; i < count; ++i) {
    Generated g = generate(seed + i, features);
    Job job;
    job.text = print(g.kernel);
    job.instance = g.kernel.instanceName();
    job.options.targets = targets;
    job.options.cross = crossEvery > 0 && i % crossEvery == 0;
    job.options.scheduleIr = !noScheduleIr;
    job.options.inputSeed = seed + i;
    if (!fault.empty())
      job.options.fault = fault == "abort" ? RunOptions::Fault::Abort : RunOptions::Fault::Hang;
    if (printKernels) {
      std::cout << "// seed " << seed + i << ":";
      for (const auto &t : g.traits)
        std::cout << " " << t;
      std::cout << "\n" << job.text;
    }
    kernels.push_back(std::move(g));
    jobs.push_back(std::move(job));
  }

  size_t executions = 0, failingKernels = 0;
  std::map<std::string, size_t> byStatus;
  std::map<Signature, std::vector<size_t>> bySignature; // kernels per kind of failure
  std::vector<std::vector<Failure>> found(count);
  runSupervised(jobs, timeout, [&](size_t i, const KernelOutcome &o) {
    for (const auto &e : o.executions)
      if (e.status != Status::Unsupported)
        ++executions, ++byStatus[statusName(e.status)];
    found[i] = failures(o);
    if (o.rejected)
      ++byStatus["rejected"];
    if (o.unusable)
      ++byStatus["unusable"];
    if (found[i].empty())
      return;
    ++failingKernels;
    for (const auto &f : found[i]) {
      // One kind of failure across targets: the same bug usually shows on several.
      Signature kind = f.sig;
      kind.target = "*";
      auto &kernelsOfKind = bySignature[kind];
      if (kernelsOfKind.empty() || kernelsOfKind.back() != i)
        kernelsOfKind.push_back(i);
      std::cout << "FAIL seed " << seed + i << ": " << f.sig.text() << ": " << firstLine(f.detail)
                << "\n";
    }
    std::cout.flush();
  });

  // Minimise and write out: the first few kernels of each kind of failure.
  size_t written = 0;
  std::set<std::string> reported;
  for (const auto &[kind, which] : bySignature) {
    for (size_t n = 0; n < which.size() && n < std::max<size_t>(minimizePerKind, 1); ++n) {
      size_t i = which[n];
      Kernel kernel = kernels[i].kernel;
      // The first target that failed this way is the one minimised; the others are listed.
      Signature sig = kind;
      std::string detail, alsoOn;
      for (const auto &f : found[i]) {
        Signature k = f.sig;
        k.target = "*";
        if (!(k == kind))
          continue;
        if (detail.empty())
          sig = f.sig, detail = f.detail;
        else
          alsoOn += (alsoOn.empty() ? "" : ", ") + f.sig.target;
      }
      MinimizeStats stats;
      if (minimizeFlag && sig.kind != "unusable") {
        RunOptions options = jobs[i].options;
        if (sig.kind != "rejected") {
          options.targets = {sig.target};
          options.scheduleIr = sig.executor == "schedule";
          options.cross = true;
        } else {
          options.targets.clear();
        }
        kernel = minimize(
            kernel,
            [&](const Kernel &candidate) {
              Job job{print(candidate), candidate.instanceName(), options};
              bool same = false;
              runSupervised({job}, timeout, [&](size_t, const KernelOutcome &o) {
                for (const auto &f : failures(o))
                  if (f.sig == sig) {
                    same = true;
                    detail = f.detail;
                  }
              });
              return same;
            },
            minimizeTries, &stats);
        std::cout << "minimised seed " << seed + i << " (" << sig.text()
                  << "): " << kernels[i].kernel.statements.size() << " -> "
                  << kernel.statements.size() << " statements, " << stats.accepted << " steps in "
                  << stats.tries << " tries\n"
                  << print(kernel);
      }
      // A minimised kernel like one already reported, failing the same way, is most likely
      // the same bug.
      std::string group = kind.text() + " | " + fingerprint(kernel);
      if (!reported.insert(group).second) {
        std::cout << "  (the same kind as an earlier finding: " << group << ")\n";
        continue;
      }
      std::cout << "finding: " << group << "\n";
      if (outDir.empty())
        continue;
      std::string name = "seed" + std::to_string(seed + i) + "-" +
                         (sig.kind == "rejected" || sig.kind == "unusable"
                              ? sig.kind
                              : sig.target + "-" + sig.executor + "-" + sig.kind) +
                         ".isam";
      for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_')
          c = '_';
      std::ofstream out(std::filesystem::path(outDir) / name);
      out << "// isamap_difftest finding: seed " << seed + i << " (" << features.describe() << ")\n"
          << "// target: " << sig.target << ", executor: " << sig.executor
          << ", failure: " << sig.kind << (sig.code.empty() ? "" : " " + sig.code) << "\n"
          << (alsoOn.empty() ? "" : "// the same failure on: " + alsoOn + "\n")
          << "// what differed:\n"
          << commented(detail)
          << (minimizeFlag ? "// minimised: " + std::to_string(stats.accepted) + " steps\n" : "")
          << "// reproduce: isamap_difftest --seed " << seed + i << " --count 1 --targets "
          << (sig.kind == "rejected" || sig.kind == "unusable" ? targetList : sig.target)
          << generatorFlags << "\n"
          << print(kernel);
      ++written;
    }
  }

  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto get = [&](const char *s) { return byStatus.count(s) ? byStatus[s] : size_t(0); };
  std::cout << count << " kernels, " << executions << " executions, " << get("mismatch")
            << " mismatches, " << get("error") << " errors, " << get("exception") << " exceptions, "
            << get("crash") << " crashes, " << get("timeout") << " timeouts, " << get("rejected")
            << " rejected by check, " << get("unusable") << " unusable references; "
            << failingKernels << " failing kernels, " << bySignature.size() << " kinds of failure";
  if (minimizeFlag)
    std::cout << ", " << reported.size() << " distinct after minimising";
  if (!outDir.empty())
    std::cout << ", " << written << " written to " << outDir;
  std::cout << " (" << int(seconds) << " s)\n";
  return failingKernels ? 1 : 0;
}
