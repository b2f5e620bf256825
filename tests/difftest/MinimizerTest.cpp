// The minimiser on synthetic failures (a predicate on the kernel, with `check` as the
// validity test), and the supervisor's handling of crashes and hangs.
#include "Minimizer.h"
#include "Generator.h"
#include "Supervisor.h"
#include "driver/Session.h"

#include <gtest/gtest.h>

#include <functional>

using namespace isam;
using namespace isam::difftest;

namespace {

bool valid(const Kernel &k) {
  Session s;
  s.loadText("min.isam", print(k));
  s.checkAll();
  auto kernels = s.instances({k.instanceName(), "", {}});
  return !s.diagnostics().hasErrors() && kernels.size() == 1;
}

// The synthetic bug: a `max=` statement that reads some tensor at a shifted or strided index.
bool hasShiftedMax(const Kernel &k) {
  for (const auto &s : k.statements) {
    if (s.op != Op::Max)
      continue;
    bool shifted = false;
    forEachRead(s.rhs, [&](const Expr &r) {
      for (const auto &ix : r.indices)
        shifted = shifted || (!ix.terms.empty() && !ix.plain());
    });
    if (shifted)
      return true;
  }
  return false;
}

size_t nodes(const Expr &e) {
  size_t n = 1;
  for (const auto &a : e.args)
    n += nodes(a);
  return n;
}

} // namespace

TEST(DifftestMinimizer, ShrinksWhileTheFailureHolds) {
  int minimised = 0;
  for (uint64_t seed = 1; seed <= 400 && minimised < 3; ++seed) {
    Generated g = generate(seed);
    if (g.kernel.statements.size() < 2 || !hasShiftedMax(g.kernel) || !valid(g.kernel))
      continue;
    MinimizeStats stats;
    Kernel m = minimize(
        g.kernel, [](const Kernel &k) { return valid(k) && hasShiftedMax(k); }, 2000, &stats);
    ++minimised;
    EXPECT_TRUE(valid(m)) << print(m);
    EXPECT_TRUE(hasShiftedMax(m)) << print(m);
    // The max= statement, and one writing an output if it writes a local.
    EXPECT_LE(m.statements.size(), 2u) << print(m);
    EXPECT_LT(kernelCost(m), kernelCost(g.kernel));
    // One read, perhaps inside a conversion (the element type must stay), and every size small.
    for (const auto &s : m.statements)
      EXPECT_LE(nodes(s.rhs), 3u) << print(m);
    for (const auto &t : m.tensors)
      for (int64_t v : t.shape)
        EXPECT_LE(v, 4) << print(m);
    EXPECT_GT(stats.accepted, 0u);
    EXPECT_LE(stats.tries, 2000u);
  }
  EXPECT_EQ(minimised, 3) << "too few kernels with a shifted max= among the seeds";
}

TEST(DifftestMinimizer, RespectsItsBudgetAndKeepsTheOriginalWhenNothingFails) {
  Kernel k = generate(7).kernel;
  MinimizeStats stats;
  Kernel m = minimize(
      k, [](const Kernel &) { return false; }, 25, &stats);
  EXPECT_EQ(print(m), print(k));
  EXPECT_LE(stats.tries, 25u);
  EXPECT_EQ(stats.accepted, 0u);
}

TEST(DifftestSupervisor, ReportsCrashesAndHangsAndCarriesOn) {
  Kernel k = generate(3).kernel;
  RunOptions fine;
  fine.targets = {"generic"};
  RunOptions aborts = fine, hangs = fine;
  aborts.fault = RunOptions::Fault::Abort;
  hangs.fault = RunOptions::Fault::Hang;
  std::vector<Job> jobs = {{print(k), k.instanceName(), aborts},
                           {print(k), k.instanceName(), fine},
                           {print(k), k.instanceName(), hangs},
                           {print(k), k.instanceName(), fine},
                           {"kernel broken(", "x", fine}};
  std::vector<KernelOutcome> got(jobs.size());
  std::vector<size_t> order;
  runSupervised(jobs, 3, [&](size_t i, const KernelOutcome &o) {
    got[i] = o;
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
  ASSERT_EQ(got[0].executions.size(), 1u);
  EXPECT_EQ(got[0].executions[0].status, Status::Crash);
  EXPECT_EQ(got[0].executions[0].executor, "fault");
  EXPECT_NE(got[0].executions[0].detail.find("signal"), std::string::npos);
  ASSERT_EQ(got[2].executions.size(), 1u);
  EXPECT_EQ(got[2].executions[0].status, Status::Timeout);
  for (size_t i : {1, 3}) {
    EXPECT_FALSE(got[i].rejected) << got[i].rejection;
    ASSERT_FALSE(got[i].executions.empty());
    for (const auto &e : got[i].executions)
      EXPECT_EQ(e.status, Status::Pass) << e.executor << ": " << e.detail;
  }
  EXPECT_TRUE(got[4].rejected);
  EXPECT_NE(got[4].rejection.find("error"), std::string::npos);
}

TEST(DifftestMinimizer, NeverIntroducesADivisionByZeroOrALogOfANegative) {
  // The synthetic failure: a division or a log anywhere. Dropping the |y| + 1 around a divisor
  // would keep it, and must not be done.
  auto risky = [](const Kernel &k) {
    bool found = false;
    for (const auto &s : k.statements) {
      std::function<void(const Expr &)> walk = [&](const Expr &e) {
        found = found || e.kind == Expr::Kind::Div || (e.kind == Expr::Kind::Call && e.fn == "log");
        for (const auto &a : e.args)
          walk(a);
      };
      walk(s.rhs);
    }
    return found;
  };
  int checked = 0;
  for (uint64_t seed = 1; seed <= 400 && checked < 5; ++seed) {
    Generated g = generate(seed);
    if (!risky(g.kernel) || !valid(g.kernel))
      continue;
    Kernel m = minimize(
        g.kernel, [&](const Kernel &k) { return valid(k) && risky(k); }, 500);
    ++checked;
    for (const auto &s : m.statements) {
      std::function<void(const Expr &)> walk = [&](const Expr &e) {
        if (e.kind == Expr::Kind::Div || (e.kind == Expr::Kind::Call && e.fn == "log")) {
          const Expr &guarded = e.kind == Expr::Kind::Div ? e.args[1] : e.args[0];
          bool constant = guarded.kind == Expr::Kind::Const && guarded.value >= 1;
          bool absPlusOne = guarded.kind == Expr::Kind::Add &&
                            guarded.args[0].kind == Expr::Kind::Call && guarded.args[0].fn == "abs";
          EXPECT_TRUE(constant || absPlusOne) << print(m);
        }
        for (const auto &a : e.args)
          walk(a);
      };
      walk(s.rhs);
    }
  }
  EXPECT_EQ(checked, 5);
}
