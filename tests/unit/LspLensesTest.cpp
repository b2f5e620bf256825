// Code lenses and code actions below the protocol, against marked-up sources.
#include "lsp/Hover.h"
#include "lsp/Lenses.h"
#include "pipeline/TuningDb.h"
#include "support/Annotations.h"
#include "support/LspTesting.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>

using namespace isam;
using namespace isam::lsp;
using isam::test::Annotations;

namespace {

// A statement the target's instructions run, and one only scalar code does (exp).
const char *kTwoKernels =
    R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  $gemm[[C[m, n] += A[m, k] * B[k, n];]]
}
kernel act<N>(X: f32[N]) -> (Y: f32[N]) {
  $act[[Y[i] = exp(X[i]);]]
}
kernel lonely<N>(X: f32[N]) -> (Y: f32[N]) {
  $lonely[[Y[i] = X[i];]]
}
instance g = gemm<64, 64, 64>;
instance e = act<100>;
)isam";

} // namespace

TEST(LspCodeLenses, HowEachStatementRunsAndWhyAKernelHasNone) {
  Annotations t(kTwoKernels);
  auto a = test::analyseDocument(t.code());
  auto lenses = codeLenses(*a);
  ASSERT_EQ(lenses.size(), 5u);
  std::string uri = a->document().uri;

  EXPECT_EQ(lenses[0].range, t.range("gemm"));
  EXPECT_EQ(lenses[0].command.command, "isamap.showMappings");
  EXPECT_TRUE(lenses[0].command.title.starts_with("maps to fma16")) << lenses[0].command.title;
  EXPECT_NE(lenses[0].command.title.find("% of peak"), std::string::npos);
  using Args = std::pair<std::string, Position>;
  EXPECT_EQ(lenses[0].command.arguments, (Args{uri, t.range("gemm").start}));
  EXPECT_EQ(lenses[1].command.title, "show schedule");
  EXPECT_EQ(lenses[1].command.command, "isamap.showSchedule");
  EXPECT_EQ(lenses[1].command.arguments, lenses[0].command.arguments);

  EXPECT_EQ(lenses[2].range, t.range("act"));
  EXPECT_TRUE(lenses[2].command.title.starts_with("scalar code (no instruction runs it) | est. "))
      << lenses[2].command.title;

  EXPECT_EQ(lenses[4].range, t.range("lonely"));
  EXPECT_TRUE(lenses[4].command.command.empty());
  EXPECT_FALSE(lenses[4].command.arguments);
  EXPECT_NE(lenses[4].command.title.find("declare an instance of 'lonely'"), std::string::npos)
      << lenses[4].command.title;
}

TEST(LspCodeLenses, AStoppedCallReturnsWhatItHas) {
  Annotations t(kTwoKernels);
  auto a = test::analyseDocument(t.code());
  EXPECT_TRUE(codeLenses(*a, [] { return true; }).empty());
}

TEST(LspCodeActions, QuickFixFromAFixItOfTheScheduleBlock) {
  Annotations t(R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { $problem[[$fix[[mapp]] fma16;]] }
}
$elsewhere[[instance]] g = gemm<64, 64, 64>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto actions = codeActions(*a, t.range("problem"));
  std::vector<const CodeAction *> fixes;
  for (const auto &action : actions)
    if (action.kind == "quickfix")
      fixes.push_back(&action);
  ASSERT_EQ(fixes.size(), 1u);
  EXPECT_EQ(fixes[0]->title, "Change to 'map'");
  EXPECT_TRUE(fixes[0]->isPreferred);
  ASSERT_EQ(fixes[0]->diagnostics.size(), 1u);
  EXPECT_EQ(fixes[0]->diagnostics[0].code, "E0704");
  EXPECT_EQ(fixes[0]->diagnostics[0].range, t.range("problem"));
  std::string uri = a->document().uri;
  ASSERT_EQ(fixes[0]->edit.changes.count(uri), 1u);
  EXPECT_EQ(fixes[0]->edit.changes.at(uri), (std::vector<TextEdit>{{t.range("fix"), "map"}}));

  for (const auto &action : codeActions(*a, t.range("elsewhere")))
    EXPECT_NE(action.kind, "quickfix") << action.title;
}

TEST(LspCodeActions, PinThisScheduleWritesABlockAfterTheStatement) {
  Annotations t(R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m^, n] += A[m, k] * B[k, n];$end^
}
instance g = gemm<96, 80, 64>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto actions = codeActions(*a, {t.point(), t.point()});
  ASSERT_EQ(actions.size(), 1u);
  const CodeAction &pin = actions[0];
  EXPECT_EQ(pin.title, "Pin this schedule (x86_avx512, instance g)");
  EXPECT_EQ(pin.kind, "refactor.rewrite");
  EXPECT_TRUE(pin.diagnostics.empty());
  const auto &edits = pin.edit.changes.at(a->document().uri);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].range, (Range{t.point("end"), t.point("end")}));
  EXPECT_TRUE(edits[0].newText.starts_with("\n  schedule {\n    map ")) << edits[0].newText;
  EXPECT_TRUE(edits[0].newText.ends_with("\n  }")) << edits[0].newText;
}

TEST(LspCodeActions, OnlyTheKindsAskedFor) {
  // A range from a statement that can be pinned to a schedule block with a fix-it.
  Annotations t(R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  $from^C[m, n] += A[m, k] * B[k, n];
}
kernel copy<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = X[i];
  schedule { mapp add16;$to^ }
}
instance g = gemm<64, 64, 64>;
)isam");
  auto a = test::analyseDocument(t.code());
  Range at{t.point("from"), t.point("to")};
  auto kinds = [&](const std::vector<std::string> &only) {
    std::vector<std::string> out;
    for (const auto &action : codeActions(*a, at, {}, only))
      out.push_back(action.kind);
    return out;
  };
  using Kinds = std::vector<std::string>;
  EXPECT_EQ(kinds({}), (Kinds{"quickfix", "refactor.rewrite"}));
  EXPECT_EQ(kinds({"quickfix"}), Kinds{"quickfix"});
  EXPECT_EQ(kinds({"refactor"}), Kinds{"refactor.rewrite"});
  EXPECT_EQ(kinds({"refactor.rewrite", "quickfix"}), (Kinds{"quickfix", "refactor.rewrite"}));
  EXPECT_EQ(kinds({"source.organizeImports"}), Kinds{});
  EXPECT_EQ(kinds({"refactor.extract"}), Kinds{});
  EXPECT_FALSE(kindWanted("refactorx", {"refactor"}));
}

TEST(LspCodeLenses, ATunedStatementShowsItsMeasuredTimeAndATuneSinceRefreshes) {
  // The record `isamap tune` would write for the search's own pick of g, measured 1.5 ms.
  Annotations t(kTwoKernels);
  Session session;
  session.loadText("t.isam", t.code());
  auto kernels = session.instances({"g", "", {}});
  auto target = session.target("x86_avx512");
  ASSERT_TRUE(kernels.size() == 1 && target);
  auto ks = session.schedule(kernels[0], *target);
  const auto &pick = ks.statements.at(0);
  pipeline::TuningRecord r;
  r.structure = pipeline::structureKey(kernels[0]);
  r.target = target->name;
  r.machine = pipeline::machineKey(*target);
  r.statements[0] = {pick.config.mapping, pick.point, schedule::decisionText(pick.config, *target),
                     ""};
  r.measuredMs = 1.5;
  r.date = "2026-11-27";
  pipeline::TuningDb db;
  db.put(r);
  std::string path = test::tempFile("lsp-tuning", "tuning.json", "");
  ASSERT_FALSE(bool(db.save(path)));

  lsp::Settings settings = test::lspSettings();
  settings.tuningDb = path;
  auto a = test::analyseDocument(t.code(), "main.isam", settings);
  auto lenses = codeLenses(*a);
  ASSERT_FALSE(lenses.empty());
  EXPECT_TRUE(lenses[0].command.title.ends_with("% of peak | 1.50 ms measured"))
      << lenses[0].command.title;
  auto hovered = hover(*a, t.range("gemm").start);
  ASSERT_TRUE(hovered && hovered->run) << (hovered ? hovered->runProblem : "no hover");
  EXPECT_EQ(hovered->run->search, "tuned: 1.50 ms measured on 2026-11-27");
  // Without the database, the search's line.
  auto untuned = test::analyseDocument(t.code(), "main.isam");
  EXPECT_EQ(codeLenses(*untuned)[0].command.title.find("measured"), std::string::npos);

  // Tuned again since: the analysis is stale.
  EXPECT_TRUE(a->madeFrom(a->document(), settings, {}));
  r.measuredMs = 1.25;
  db.put(r);
  std::filesystem::last_write_time(path, std::filesystem::last_write_time(path) -
                                             std::chrono::seconds(5));
  ASSERT_FALSE(bool(db.save(path)));
  EXPECT_FALSE(a->madeFrom(a->document(), settings, {}));
}

namespace {

// Polled as a StopFn: whether another thread can take the analysis's lock now. Polls come both
// between the work's locked steps and within them (where the lock is busy, for up to 200 ms of
// waiting), so what tells is that some find it free. The futures are kept until the work is
// over: one still waiting for the lock is then let through.
struct LockProbe {
  Analysis &a;
  std::vector<std::future<void>> pending = {};
  int free = 0;
  bool operator()() {
    auto f = std::async(std::launch::async, [this] { auto held = a.lock(); });
    if (f.wait_for(std::chrono::milliseconds(200)) == std::future_status::ready)
      ++free;
    pending.push_back(std::move(f));
    return false;
  }
};

} // namespace

TEST(LspCodeLenses, OtherRequestsTakeTheLockBetweenTwoStatements) {
  Annotations t(kTwoKernels);
  auto a = test::analyseDocument(t.code());
  LockProbe probe{*a};
  auto lenses = codeLenses(*a, std::ref(probe));
  probe.pending.clear();
  EXPECT_EQ(lenses.size(), 5u);
  EXPECT_GE(probe.free, 3); // before each of the three statements
}

TEST(LspDiagnosticsWork, OtherRequestsTakeTheLockBetweenTwoKernels) {
  Annotations t(kTwoKernels);
  auto a = test::analyseDocument(t.code());
  LockProbe probe{*a};
  a->prepareDiagnostics(std::ref(probe));
  probe.pending.clear();
  EXPECT_GE(probe.free, 3); // before each of the three kernels
  // What the diagnostics need is there: they take no search of their own now.
  auto lock = a->lock();
  EXPECT_EQ(a->mappingDiagnostics([] { return true; }).size(), 0u);
}

TEST(LspCodeLenses, APaddedConvolutionShowsItsOwnMappingNotItsStagedCopys) {
  // The staged copy of I (scalar code) shares the statement's source range; the lens is about
  // the convolution, which runs on the FMA.
  Annotations t(
      R"isam(kernel conv<C, H, W, F>(I: f32[C, H, W], K: f32[F, C, 3, 3]) -> (O: f32[F, H, W]) {
  $conv[[O[f, h, w] += I[c, h + r - 1, w + s - 1] pad 0 * K[f, c, r, s];]]
}
instance c = conv<8, 9, 37, 16>;
)isam");
  auto a = test::analyseDocument(t.code());
  auto lenses = codeLenses(*a);
  ASSERT_GE(lenses.size(), 1u);
  EXPECT_EQ(lenses[0].range, t.range("conv"));
  EXPECT_TRUE(lenses[0].command.title.starts_with("maps to fma16"))
      << lenses[0].command.title << " | " << (lenses.size() > 1 ? lenses[1].command.title : "");
}
