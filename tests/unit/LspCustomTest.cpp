// isamap's own requests below the protocol (lsp/Custom.h): what each answers for the statement
// under the cursor, and why it answers nothing for a kernel without instance, an unknown
// target, or a stopped request.
#include "lsp/Custom.h"
#include "lsp/ProtocolJson.h"
#include "support/Annotations.h"
#include "support/LspTesting.h"

#include <gtest/gtest.h>

using namespace isam;
using namespace isam::lsp;
using isam::test::Annotations;

namespace {

const char *kKernels =
    R"isam(kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  $second^C[m, n] = C[m, n] * A[m, 0];
}
kernel $lonely^lonely<N>(X: f32[N]) -> (Y: f32[N]) {
  Y[i] = X[i];
}
instance g = gemm<16, 16, 16>;
)isam";

class LspCustom : public ::testing::Test {
protected:
  Annotations t{kKernels};
  std::shared_ptr<lsp::Analysis> a = test::analyseDocument(t.code());
  FocusParams at(const std::string &point, std::string target = {}) {
    return FocusParams{t.point(point), {}, std::move(target)};
  }
  StopFn stopNow = [] { return true; };
};

TEST_F(LspCustom, MappingsOfTheStatementUnderTheCursor) {
  auto r = mappings(*a, at("second"));
  ASSERT_TRUE(r.result) << r.message;
  EXPECT_EQ(r.result->about.kernel, "gemm");
  EXPECT_EQ(r.result->about.instance, "g");
  EXPECT_EQ(r.result->about.target, "x86_avx512");
  EXPECT_EQ(r.result->about.statement, 1u);
  ASSERT_EQ(r.result->statements.size(), 1u);
  EXPECT_EQ(r.result->statements[0].mappings.index, 1u);
  ASSERT_TRUE(r.result->statements[0].range);
  EXPECT_EQ(r.result->statements[0].range->start.line, 2u);

  // Without a position: every statement of the first kernel's instance.
  auto all = mappings(*a, FocusParams{});
  ASSERT_TRUE(all.result) << all.message;
  EXPECT_FALSE(all.result->about.statement);
  EXPECT_EQ(all.result->statements.size(), 2u);
  json j = *all.result;
  EXPECT_EQ(j["statements"][0]["range"]["start"]["line"], 1);
  EXPECT_TRUE(j["statement"].is_null());
}

TEST_F(LspCustom, ScheduleOfTheInstanceNamingTheStatement) {
  std::vector<std::string> progress;
  Progress p{[&](const std::string &title) { progress.push_back(title); },
             [&] { progress.push_back("end"); }};
  auto r = lsp::schedule(*a, at("second"), {}, p);
  ASSERT_TRUE(r.result) << r.message;
  EXPECT_EQ(r.result->about.statement, 1u);
  EXPECT_EQ(r.result->schedule.statements.size(), 2u);
  EXPECT_TRUE(r.result->text.starts_with("schedule of g on x86_avx512")) << r.result->text;
  EXPECT_EQ(progress, (std::vector<std::string>{"Scheduling gemm", "end"}));
  json j = *r.result;
  EXPECT_EQ(j["schedule"]["instance"], "g");
  EXPECT_EQ(j["statement"], 1);
}

TEST_F(LspCustom, DiagramOfEachViewAndItsRefusals) {
  DiagramParams p;
  p.focus = at("second");
  p.dot = true;
  p.view = viz::What::Kernel;
  p.viewName = "kernel";
  auto kernel = diagram(*a, p);
  ASSERT_TRUE(kernel.result) << kernel.message;
  EXPECT_TRUE(kernel.result->text.starts_with("digraph")) << kernel.result->text;
  ASSERT_TRUE(kernel.result->about);
  EXPECT_EQ(kernel.result->about->statement, 1u);

  p.view = viz::What::Hardware;
  auto hardware = diagram(*a, p);
  ASSERT_TRUE(hardware.result) << hardware.message;
  EXPECT_FALSE(hardware.result->about);
  EXPECT_EQ(hardware.result->target, "x86_avx512");

  p.view = viz::What::Mapping;
  p.focus = FocusParams{};
  p.candidate = 1000;
  auto missing = diagram(*a, p);
  EXPECT_FALSE(missing.result);
  EXPECT_EQ(missing.refusal, Refusal::InvalidParams);
  EXPECT_NE(missing.message.find("mapping 1000 does not exist"), std::string::npos)
      << missing.message;

  p.view = viz::What::Schedule;
  p.dot = false;
  auto svg = diagram(*a, p);
  ASSERT_TRUE(svg.result) << svg.message;
  EXPECT_NE(svg.result->text.find("<svg"), std::string::npos);
  EXPECT_TRUE(json(*svg.result).contains("svg"));
}

TEST_F(LspCustom, TargetCodeAsAssemblyAndLlvmIr) {
  TargetCodeParams p{FocusParams{}, true};
  auto ir = targetCode(*a, p);
  ASSERT_TRUE(ir.result) << ir.message;
  EXPECT_NE(ir.result->text.find("define void @g("), std::string::npos);
  EXPECT_FALSE(ir.result->stream);
  EXPECT_EQ(json(*ir.result)["kind"], "llvm");

  p.llvm = false;
  p.focus.target = "systolic16";
  auto stream = targetCode(*a, p);
  ASSERT_TRUE(stream.result) << stream.message;
  EXPECT_TRUE(stream.result->stream);
  EXPECT_TRUE(json(*stream.result)["compileMs"].contains("emit"));
}

TEST_F(LspCustom, AKernelWithoutInstanceSaysWhy) {
  FocusParams p = at("lonely");
  auto m = mappings(*a, p);
  auto s = lsp::schedule(*a, p);
  auto c = targetCode(*a, TargetCodeParams{p, false});
  DiagramParams d;
  d.focus = p;
  auto g = diagram(*a, d);
  for (const std::string *message : {&m.message, &s.message, &c.message, &g.message})
    EXPECT_NE(message->find("declare an instance of 'lonely'"), std::string::npos) << *message;
  EXPECT_FALSE(m.result || s.result || c.result || g.result);
  EXPECT_EQ(g.refusal, Refusal::None);
}

TEST_F(LspCustom, AnUnknownTargetSaysWhy) {
  FocusParams p = at("second", "no_such_target");
  auto m = mappings(*a, p);
  auto s = lsp::schedule(*a, p);
  auto c = targetCode(*a, TargetCodeParams{p, false});
  DiagramParams d;
  d.focus = p;
  d.view = viz::What::Hardware;
  auto g = diagram(*a, d);
  for (const std::string *message : {&m.message, &s.message, &c.message, &g.message})
    EXPECT_NE(message->find("unknown target 'no_such_target'"), std::string::npos) << *message;
  EXPECT_FALSE(m.result || s.result || c.result || g.result);
}

TEST_F(LspCustom, AStoppedRequestAnswersNothingAndEndsItsProgress) {
  int begun = 0, ended = 0;
  Progress p{[&](const std::string &) { ++begun; }, [&] { ++ended; }};
  auto m = mappings(*a, FocusParams{}, stopNow);
  auto s = lsp::schedule(*a, FocusParams{}, stopNow, p);
  auto c = targetCode(*a, TargetCodeParams{}, stopNow, p);
  DiagramParams d;
  auto g = diagram(*a, d, stopNow, p);
  for (const auto *message : {&m.message, &s.message, &c.message, &g.message})
    EXPECT_EQ(*message, "stopped");
  EXPECT_FALSE(m.result || s.result || c.result || g.result);
  EXPECT_EQ(begun, 3);
  EXPECT_EQ(ended, 3);
}

} // namespace
