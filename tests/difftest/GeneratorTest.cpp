// The kernel generator: deterministic for a seed, every kernel valid (isamap check accepts
// it and it instantiates), every feature covered, and the feature switches honoured.
#include "Generator.h"
#include "driver/Session.h"

#include <gtest/gtest.h>

#include <map>

using namespace isam;
using namespace isam::difftest;

namespace {

constexpr uint64_t kKernels = 300;

std::string diagnostics(Session &s) {
  std::string out;
  for (const auto &d : s.diagnostics().all())
    out += renderDiagnostic(d, s.sources()) + "\n";
  return out;
}

// Whether a statement reads the tensor it writes, reads a tensor at two points, or uses an
// index in two dimensions of one access.
struct Shape {
  bool selfRead = false, multiOffset = false, diagonal = false;
};

Shape shapeOf(const Kernel &k) {
  Shape s;
  for (const auto &st : k.statements) {
    std::map<std::string, std::vector<IndexExpr>> seen;
    forEachRead(st.rhs, [&](const Expr &r) {
      s.selfRead = s.selfRead || r.tensor == st.lhs;
      auto [it, fresh] = seen.emplace(r.tensor, r.indices);
      if (!fresh && !(it->second == r.indices))
        s.multiOffset = true;
      std::map<std::string, int> uses;
      for (const auto &ix : r.indices)
        for (const auto &t : ix.terms)
          if (++uses[t.index] == 2)
            s.diagonal = true;
    });
  }
  return s;
}

} // namespace

TEST(DifftestGenerator, IsDeterministicForASeed) {
  for (uint64_t seed = 1; seed <= 50; ++seed)
    EXPECT_EQ(print(generate(seed).kernel), print(generate(seed).kernel)) << "seed " << seed;
  std::set<std::string> distinct;
  for (uint64_t seed = 1; seed <= 50; ++seed)
    distinct.insert(print(generate(seed).kernel));
  EXPECT_GT(distinct.size(), 45u);
}

TEST(DifftestGenerator, EveryKernelPassesCheckAndInstantiates) {
  for (uint64_t seed = 1; seed <= kKernels; ++seed) {
    Generated g = generate(seed);
    std::string text = print(g.kernel);
    Session s;
    s.loadText("gen.isam", text);
    s.checkAll();
    auto kernels = s.instances({g.kernel.instanceName(), "", {}});
    ASSERT_FALSE(s.diagnostics().hasErrors()) << "seed " << seed << "\n" << text << diagnostics(s);
    ASSERT_EQ(kernels.size(), 1u) << text;
    // Staged copies of padded reads (ir/Padding.h) come in between the statements written.
    size_t written = 0;
    for (const auto &st : kernels[0].statements)
      written += st.staged ? 0 : 1;
    ASSERT_EQ(written, g.kernel.statements.size()) << text;
  }
}

TEST(DifftestGenerator, CoversEveryFeature) {
  // More kernels than the other tests: eighteen functions share the calls.
  constexpr uint64_t kCoverage = 1000;
  std::map<std::string, int> seen;
  for (uint64_t seed = 1; seed <= kCoverage; ++seed)
    for (const auto &t : generate(seed).traits)
      ++seen[t];
  std::vector<std::string> wanted = {"op:=",
                                     "op:+=",
                                     "op:max=",
                                     "op:min=",
                                     "op:*=",
                                     "type:f16",
                                     "type:bf16",
                                     "type:f32",
                                     "type:f64",
                                     "type:i8",
                                     "type:i32",
                                     "rank:0",
                                     "rank:1",
                                     "rank:2",
                                     "rank:3",
                                     "rank:4",
                                     "rank:5",
                                     "statements:1",
                                     "statements:2",
                                     "statements:3",
                                     "statements:4",
                                     "local",
                                     "implicit",
                                     "scalar",
                                     "rewrite",
                                     "cast",
                                     "div",
                                     "stride",
                                     "shift",
                                     "negative-shift",
                                     "index-sum",
                                     "const-index",
                                     "where",
                                     "where-lo",
                                     "where-redundant",
                                     "prime",
                                     "size-1",
                                     "self-read",
                                     "partial-writes",
                                     "multi-offset",
                                     "diagonal",
                                     "int-overflow",
                                     "select",
                                     "compare",
                                     "logic",
                                     "index-value",
                                     "pad",
                                     "index-quotient",
                                     "index-remainder",
                                     "shifted-write",
                                     "strided-write",
                                     "strided-overlap",
                                     "gather",
                                     "guard"};
  for (const auto &fn : {"exp", "tanh", "sigmoid", "relu", "max", "min", "sqrt", "log", "abs",
                         "rsqrt", "erf", "pow", "sin", "cos", "exp2", "log2", "floor", "round"})
    wanted.push_back(std::string("fn:") + fn);
  for (const auto &w : wanted)
    EXPECT_GT(seen[w], 0) << w << " never appears in " << kCoverage << " kernels";
  // Strided writes come with their own index and shape: often enough to matter.
  EXPECT_GE(seen["strided-write"], 50) << "strided writes in " << kCoverage << " kernels";
}

TEST(DifftestGenerator, HonoursItsSwitches) {
  Features off;
  for (const auto &n : Features::names())
    ASSERT_TRUE(off.set(n, false)) << n;
  EXPECT_FALSE(off.set("no-such-feature", false));
  for (uint64_t seed = 1; seed <= kKernels; ++seed) {
    Generated g = generate(seed, off);
    Shape s = shapeOf(g.kernel);
    EXPECT_FALSE(s.selfRead) << print(g.kernel);
    EXPECT_FALSE(s.multiOffset) << print(g.kernel);
    EXPECT_FALSE(s.diagonal) << print(g.kernel);
    for (const char *t : {"partial-writes", "int-overflow", "self-read", "multi-offset"})
      EXPECT_FALSE(g.traits.count(t)) << t << " in seed " << seed << "\n" << print(g.kernel);
    for (const auto &t : g.kernel.tensors)
      EXPECT_FALSE(t.role == Role::Implicit && t.shape.empty()) << print(g.kernel);
  }
  Features two;
  two.maxStatements = 2;
  two.maxRank = 2;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    Generated g = generate(seed, two);
    EXPECT_LE(g.kernel.statements.size(), 2u);
    for (const auto &t : g.kernel.tensors)
      EXPECT_LE(t.shape.size(), 2u) << print(g.kernel);
  }
}
