// viz/: the DOT builder (escaping, the node cap), in-process rendering (DOT that Graphviz parses,
// well-formed SVG with the expected node and edge titles, PNG bytes), the structure of each kind
// of picture on the samples, stability, and pictures of degenerate inputs (an empty kernel, an
// unmappable statement, a huge kernel).
#include "support/TestSupport.h"

#include "viz/Dot.h"
#include "viz/HardwareGraph.h"
#include "viz/KernelGraph.h"
#include "viz/MappingGraph.h"
#include "viz/Render.h"
#include "viz/ScheduleGraph.h"
#include "viz/Viz.h"

#include <graphviz/cgraph.h>
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cmath>
#include <set>

using namespace isam;

namespace {

// ---- helpers ---------------------------------------------------------------------------------

struct Svg {
  bool wellFormed = false;
  std::set<std::string> nodes, edges, clusters; // <title> of each <g class="...">
};

void collect(xmlNode *n, Svg &out) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (xmlStrEqual(n->name, BAD_CAST "g")) {
      xmlChar *cls = xmlGetProp(n, BAD_CAST "class");
      std::string kind = cls ? reinterpret_cast<const char *>(cls) : "";
      xmlFree(cls);
      for (xmlNode *c = n->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && xmlStrEqual(c->name, BAD_CAST "title")) {
          xmlChar *text = xmlNodeGetContent(c);
          std::string title = text ? reinterpret_cast<const char *>(text) : "";
          xmlFree(text);
          if (kind == "node")
            out.nodes.insert(title);
          else if (kind == "edge")
            out.edges.insert(title);
          else if (kind == "cluster")
            out.clusters.insert(title);
          break;
        }
    }
    collect(n->children, out);
  }
}

// Parses SVG with libxml2 (no network, no DTD) and lists the titles Graphviz gave its groups.
Svg parseSvg(const std::string &svg) {
  Svg out;
  xmlDocPtr doc = xmlReadMemory(svg.data(), int(svg.size()), "picture.svg", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc)
    return out;
  xmlNode *root = xmlDocGetRootElement(doc);
  out.wellFormed = root && xmlStrEqual(root->name, BAD_CAST "svg");
  collect(root, out);
  xmlFreeDoc(doc);
  return out;
}

bool isPng(const std::string &data) {
  static const std::string sig("\x89PNG\r\n\x1a\n", 8);
  return data.size() > sig.size() && data.compare(0, sig.size(), sig) == 0;
}

// Renders `dot` to SVG (expecting no Graphviz message at all) and parses it.
Svg svgOf(const std::string &dot) {
  viz::Rendered r = viz::render(dot, viz::Format::Svg);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.error, "") << "Graphviz warned";
  Svg s = parseSvg(r.data);
  EXPECT_TRUE(s.wellFormed);
  return s;
}

std::string sample(const std::string &name) {
  return test::sourceDir() + "/samples/" + name;
}

std::unique_ptr<Session> load(const std::string &path) {
  auto s = std::make_unique<Session>();
  EXPECT_TRUE(s->loadFile(path));
  return s;
}

std::string render(Session &s, const viz::Request &r) {
  auto dot = viz::dotFor(s, r);
  std::string diags;
  for (const auto &d : s.diagnostics().all())
    diags += renderDiagnostic(d, s.sources());
  EXPECT_TRUE(dot.has_value()) << diags;
  return dot.value_or("");
}

viz::Request request(viz::What what, const std::string &instance, const std::string &target = "") {
  viz::Request r;
  r.what = what;
  r.selector.instance = instance;
  r.target = target;
  return r;
}

// Whether the subgraph `inner` is nested in `outer` (DOT parsed by cgraph).
bool nested(const std::string &dot, const std::string &outer, const std::string &inner) {
  Agraph_t *g = agmemread(dot.c_str());
  if (!g)
    return false;
  Agraph_t *o = nullptr;
  // Depth-first search for `outer`, then `inner` directly below it.
  std::vector<Agraph_t *> stack{g};
  while (!stack.empty() && !o) {
    Agraph_t *x = stack.back();
    stack.pop_back();
    for (Agraph_t *s = agfstsubg(x); s; s = agnxtsubg(s)) {
      if (outer == agnameof(s))
        o = s;
      stack.push_back(s);
    }
  }
  bool found = false;
  if (o)
    for (Agraph_t *s = agfstsubg(o); s; s = agnxtsubg(s))
      found = found || inner == agnameof(s);
  agclose(g);
  return found;
}

// Whether node `node` belongs to subgraph `sub` (at any depth below the root).
bool inSubgraph(const std::string &dot, const std::string &sub, const std::string &node) {
  Agraph_t *g = agmemread(dot.c_str());
  if (!g)
    return false;
  bool found = false;
  std::vector<Agraph_t *> stack{g};
  while (!stack.empty()) {
    Agraph_t *x = stack.back();
    stack.pop_back();
    for (Agraph_t *s = agfstsubg(x); s; s = agnxtsubg(s)) {
      if (sub == agnameof(s))
        found = found || agnode(s, const_cast<char *>(node.c_str()), 0) != nullptr;
      stack.push_back(s);
    }
  }
  agclose(g);
  return found;
}

void expectAll(const std::set<std::string> &have, const std::vector<std::string> &want,
               const char *what) {
  for (const auto &w : want)
    EXPECT_TRUE(have.count(w)) << what << " '" << w << "' missing";
}

} // namespace

// ---- the DOT builder ---------------------------------------------------------------------------

TEST(VizDot, Escaping) {
  EXPECT_EQ(viz::quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(viz::html("a<b & \"c\">\n"), "a&lt;b &amp; &quot;c&quot;&gt;<BR/>");
  EXPECT_EQ(viz::sanitize("ok\x01\xff\xc3\xa9", 100), "ok ?\xc3\xa9");
  EXPECT_EQ(viz::sanitize("abcdef", 3), "abc...");
  EXPECT_EQ(viz::sanitize("abc", 3), "abc");
  EXPECT_EQ(viz::wrap("aaa bbb ccc", 7), (std::vector<std::string>{"aaa bbb", "ccc"}));
  EXPECT_EQ(viz::number(3), "3");
  EXPECT_EQ(viz::number(0.0626, 3), "0.063");
  EXPECT_EQ(viz::number(1.5), "1.5");
  EXPECT_EQ(viz::bytes(624), "624 B");
  EXPECT_EQ(viz::bytes(256 * 1024), "256 KiB");
  EXPECT_EQ(viz::bytes(1.5 * 1024 * 1024), "1.5 MiB");
  EXPECT_EQ(viz::perCycleText(1.0 / 16), "1/16");
  EXPECT_EQ(viz::clockText(3.6e9), "3.6 GHz");
}

TEST(VizDot, HostileTextStaysParseable) {
  viz::Graph g("evil \"name\" \\ {", 10);
  std::string evil = "\"; } digraph x { a -> b [label=<<B>x</B>>]; \\\\\" \n\\N \xff";
  auto c = g.cluster(viz::Graph::kRoot, evil, {{"label", evil}});
  g.node(c, evil, {{"label", evil}, {"tooltip", evil}});
  g.node(c, "html", {{"label", viz::Value::Html("<B>" + viz::html(viz::sanitize(evil)) + "</B>")}});
  g.edge(evil, "html", {{"label", evil}});
  std::string err;
  EXPECT_TRUE(viz::parses(g.str(), &err)) << err << "\n" << g.str();
  Svg s = svgOf(g.str());
  EXPECT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.edges.size(), 1u);
}

TEST(VizDot, NodeCapAddsAnEllipsis) {
  auto n = [](int i) {
    std::string id = "n";
    id += std::to_string(i);
    return id;
  };
  viz::Graph g("capped", 3);
  for (int i = 0; i < 10; ++i)
    g.node(viz::Graph::kRoot, n(i), {});
  g.node(viz::Graph::kRoot, "legend", {}, /*essential=*/true);
  for (int i = 1; i < 10; ++i)
    g.edge(n(i - 1), n(i), {});
  EXPECT_EQ(g.nodeCount(), 3u);
  EXPECT_EQ(g.omittedNodes(), 7u);
  EXPECT_EQ(g.omittedEdges(), 7u);
  std::string dot = g.str();
  EXPECT_NE(dot.find("7 more nodes and 7 edges not shown"), std::string::npos) << dot;
  Svg s = svgOf(dot);
  EXPECT_EQ(s.nodes, (std::set<std::string>{"n0", "n1", "n2", "legend", "ellipsis"}));
  EXPECT_EQ(s.edges, (std::set<std::string>{"n0->n1", "n1->n2"}));
}

// ---- rendering -------------------------------------------------------------------------------

TEST(VizRender, DotSvgPng) {
  auto s = load(sample("gemm.isam"));
  std::string dot = render(*s, request(viz::What::Kernel, "gemm_small"));
  std::string err;
  EXPECT_TRUE(viz::parses(dot, &err)) << err;
  viz::Rendered d = viz::render(dot, viz::Format::Dot);
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.data, dot);
  Svg svg = svgOf(dot);
  EXPECT_FALSE(svg.nodes.empty());
  viz::Rendered png = viz::render(dot, viz::Format::Png);
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_TRUE(isPng(png.data));
}

TEST(VizRender, BadDotIsAnErrorAndLeavesGraphvizUsable) {
  for (viz::Format f : {viz::Format::Dot, viz::Format::Svg, viz::Format::Png}) {
    viz::Rendered r = viz::render("digraph { a -> ; }", f);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.error.empty());
  }
  EXPECT_FALSE(viz::parses("graph { a -> b }"));
  // Graphviz's parser recovers: the next graph renders.
  viz::Rendered ok = viz::render("digraph { a -> b; }", viz::Format::Svg);
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_EQ(parseSvg(ok.data).edges, (std::set<std::string>{"a->b"}));
}

// ---- golden structure per kind ---------------------------------------------------------------

TEST(VizKernel, DwsepDataflow) {
  auto s = load(sample("dwsep.isam"));
  std::string dot = render(*s, request(viz::What::Kernel, "dwsep_small"));
  Svg svg = svgOf(dot);
  expectAll(svg.nodes,
            {"tensor.I", "tensor.D", "tensor.P", "tensor.T", "tensor.O", "s0", "s1", "legend"},
            "node");
  expectAll(svg.edges,
            {"tensor.I->s0", "tensor.D->s0", "s0->tensor.T", "tensor.T->s1", "tensor.P->s1",
             "s1->tensor.O"},
            "edge");
  EXPECT_EQ(svg.edges.size(), 6u);
  // Labels: the expression, the shapes, the accesses.
  EXPECT_NE(dot.find("T[c, h, w] += I[c, h + r, w + s] * D[c, r, s]"), std::string::npos);
  EXPECT_NE(dot.find("f32[3, 7, 9]"), std::string::npos);
  EXPECT_NE(dot.find("label=\"I[c, h + r, w + s]\""), std::string::npos);
  EXPECT_TRUE(inSubgraph(dot, "cluster_kernel", "s1"));
}

TEST(VizHardware, Systolic16Architecture) {
  auto s = load(test::sourceDir() + "/hwdesc/systolic16.isam");
  std::string dot = render(*s, request(viz::What::Hardware, "")); // the file's only target
  Svg svg = svgOf(dot);
  expectAll(svg.nodes, {"mem.DRAM", "mem.SPAD", "mem.ACC", "unit.load", "unit.store", "unit.array"},
            "node");
  expectAll(svg.edges,
            {"mem.DRAM->mem.SPAD", "mem.SPAD->mem.ACC", "mem.DRAM->mem.ACC", "mem.ACC->mem.DRAM",
             "mem.SPAD->unit.array", "mem.ACC->unit.array"},
            "edge");
  expectAll(svg.clusters,
            {"cluster_mem.DRAM", "cluster_mem.SPAD", "cluster_mem.ACC", "cluster_units",
             "cluster_legend"},
            "cluster");
  // Memories nest by parent; instructions are listed on their units; moves carry their cost.
  EXPECT_TRUE(nested(dot, "cluster_mem.DRAM", "cluster_mem.SPAD"));
  EXPECT_TRUE(nested(dot, "cluster_mem.SPAD", "cluster_mem.ACC"));
  EXPECT_TRUE(inSubgraph(dot, "cluster_units", "unit.array"));
  EXPECT_NE(dot.find("size 256 KiB"), std::string::npos);
  EXPECT_NE(dot.find("feeds inner levels at 32 B/cycle"), std::string::npos);
  EXPECT_NE(dot.find("mvin<R>: 32 B/cycle, latency 100"), std::string::npos);
  EXPECT_NE(dot.find("<B>mma_ow</B>"), std::string::npos);
}

TEST(VizHardware, X86RegistersAndSystem) {
  auto s = load(sample("gemm.isam"));
  std::string dot = render(*s, request(viz::What::Hardware, "", "x86_avx512"));
  Svg svg = svgOf(dot);
  expectAll(svg.nodes, {"mem.DRAM", "mem.L3", "mem.L2", "mem.L1", "mem.ZMM", "unit.fma"}, "node");
  expectAll(svg.edges, {"mem.L1->mem.ZMM", "mem.ZMM->mem.L1", "mem.ZMM->unit.fma"}, "edge");
  EXPECT_TRUE(nested(dot, "cluster_mem.L1", "cluster_mem.ZMM"));
  EXPECT_NE(dot.find("32 x 64 B = 2 KiB"), std::string::npos);

  auto soc = load(test::sourceDir() + "/hwdesc/soc.isam");
  std::string sys = render(*soc, request(viz::What::Hardware, "", "soc"));
  Svg ssvg = svgOf(sys);
  expectAll(ssvg.nodes, {"x86_avx512.mem.DRAM", "systolic16.mem.DRAM", "systolic16.unit.array"},
            "node");
  expectAll(ssvg.edges, {"x86_avx512.mem.DRAM->systolic16.mem.DRAM"}, "edge");
  expectAll(ssvg.clusters, {"cluster_target.x86_avx512", "cluster_target.systolic16"}, "cluster");
  EXPECT_TRUE(nested(sys, "cluster_target.systolic16", "cluster_systolic16.mem.DRAM"));
}

TEST(VizMapping, FusedIndicesOperandsAndRejections) {
  auto s = load(sample("dwsep.isam"));
  auto r = request(viz::What::Mapping, "dwsep_small", "systolic16");
  r.statement = 1;
  std::string dot = render(*s, r);
  Svg svg = svgOf(dot);
  expectAll(svg.nodes,
            {"stmt.f", "stmt.h", "stmt.w", "stmt.c", "instr.i", "instr.j", "instr.k", "operand.acc",
             "operand.a", "operand.b", "access.0", "access.1", "access.2", "rejected.mvin",
             "rejected.mvout_relu", "summary", "alternatives"},
            "node");
  // The best mapping: i <- f, j <- h*w (fused), k <- c; O, P, T to acc, a, b.
  expectAll(svg.edges,
            {"stmt.f->instr.i", "stmt.h->instr.j", "stmt.w->instr.j", "stmt.c->instr.k",
             "access.0->operand.acc", "access.1->operand.a", "access.2->operand.b"},
            "edge");
  EXPECT_TRUE(inSubgraph(dot, "cluster_fused.j", "stmt.h"));
  EXPECT_TRUE(inSubgraph(dot, "cluster_fused.j", "stmt.w"));
  EXPECT_FALSE(inSubgraph(dot, "cluster_fused.j", "stmt.f"));
  EXPECT_TRUE(inSubgraph(dot, "cluster_rejected", "rejected.mvin"));
  EXPECT_NE(dot.find("fused into j: h*w = 35"), std::string::npos);
  EXPECT_NE(dot.find("does not accumulate"), std::string::npos);
  EXPECT_NE(dot.find("via mvin (DRAM -> SPAD)"), std::string::npos);

  // Another candidate by rank; one past the end is an error, not a picture of the error.
  r.mapping = 1;
  EXPECT_NE(render(*s, r).find("mapping #2 of"), std::string::npos);
  r.mapping = 1000;
  EXPECT_FALSE(viz::dotFor(*s, r).has_value());
  ASSERT_TRUE(s->diagnostics().hasErrors());
  EXPECT_NE(
      s->diagnostics().all().back().message.find("there is no mapping #1001 of s1 on systolic16"),
      std::string::npos)
      << s->diagnostics().all().back().message;
}

TEST(VizMapping, OnASystemUsesThePlacedUnit) {
  auto s = load(sample("mlp.isam"));
  auto r = request(viz::What::Mapping, "mlp_mnist", "soc");
  r.statement = 1; // the first GEMM goes to the accelerator
  std::string dot = render(*s, r);
  EXPECT_NE(dot.find("s1 on systolic16"), std::string::npos);
  r.statement = 2; // relu stays on the host
  EXPECT_NE(render(*s, r).find("s2 on x86_avx512"), std::string::npos);
}

TEST(VizSchedule, LevelsBuffersMovesAndBound) {
  auto s = load(sample("gemm.isam"));
  std::string dot = render(*s, request(viz::What::Schedule, "gemm_small", "systolic16"));
  Svg svg = svgOf(dot);
  // Levels DRAM > SPAD > ACC; a and b staged in SPAD, acc in ACC; the instruction at the core.
  expectAll(svg.nodes,
            {"s0.op.a.0", "s0.op.a.1", "s0.op.b.0", "s0.op.b.1", "s0.op.acc.0", "s0.op.acc.2",
             "s0.instr", "s0.summary"},
            "node");
  expectAll(svg.edges,
            {"s0.op.a.0->s0.op.a.1", "s0.op.b.0->s0.op.b.1", "s0.op.acc.0->s0.op.acc.2",
             "s0.op.a.1->s0.instr", "s0.op.acc.2->s0.instr"},
            "edge");
  EXPECT_TRUE(nested(dot, "cluster_s0", "cluster_s0.level.0"));
  EXPECT_TRUE(nested(dot, "cluster_s0.level.0", "cluster_s0.level.1"));
  EXPECT_TRUE(nested(dot, "cluster_s0.level.1", "cluster_s0.level.2"));
  EXPECT_TRUE(inSubgraph(dot, "cluster_s0.level.2", "s0.instr"));
  EXPECT_TRUE(inSubgraph(dot, "cluster_s0.level.1", "s0.op.a.1"));
  EXPECT_NE(dot.find("buffer A@SPAD [7, 13]"), std::string::npos);
  EXPECT_NE(dot.find("via mvin\\n364 B per iteration x 1\\n= 364 B total"), std::string::npos)
      << dot;
  // gemm_small is one tile: its fills and write-back have nothing to overlap with.
  EXPECT_NE(dot.find("bound: moves (not overlapped)"), std::string::npos);
}

TEST(VizSchedule, BandwidthBoundLevelIsHighlighted) {
  auto s = load(sample("dwsep.isam"));
  auto r = request(viz::What::Schedule, "dwsep_small", "x86_avx512");
  std::string dot = render(*s, r);
  svgOf(dot);
  auto t = s->target("x86_avx512");
  ASSERT_TRUE(t);
  auto ks = s->schedule(*s->instances({"dwsep_small", "", {}}).begin(), *t, r.scheduleOptions);
  ASSERT_EQ(ks.statements.size(), 2u);
  for (const auto &ss : ks.statements) {
    if (ss.cost.bound != schedule::Bound::Bandwidth)
      continue;
    std::string level = t->memories.at(size_t(ss.cost.boundAt)).name;
    EXPECT_NE(dot.find("bound: bandwidth into " + level), std::string::npos) << dot;
  }
  // --statement draws one statement.
  r.statement = 1;
  std::string one = render(*s, r);
  EXPECT_EQ(one.find("cluster_s0\""), std::string::npos);
  EXPECT_NE(one.find("cluster_s1\""), std::string::npos);
}

// The per-operand traffic on the move edges adds up to the cost model's bytes into each level.
TEST(VizSchedule, TrafficMatchesTheCostModel) {
  for (const auto &[file, instance] :
       std::vector<std::pair<std::string, std::string>>{{"gemm.isam", "gemm_small"},
                                                        {"dwsep.isam", "dwsep_small"},
                                                        {"conv2d.isam", "conv_small"},
                                                        {"mlp.isam", "mlp_small"}}) {
    for (const char *target : {"systolic16", "x86_avx512", "arm_neon"}) {
      auto s = load(sample(file));
      auto kernels = s->instances({instance, "", {}});
      auto t = s->target(target);
      ASSERT_EQ(kernels.size(), 1u) << instance;
      ASSERT_TRUE(t);
      auto ks = s->schedule(kernels[0], *t, viz::Request().scheduleOptions);
      for (const auto &ss : ks.statements) {
        const auto &c = ss.config;
        if (c.mapping < 0)
          continue;
        for (size_t l = 1; l < c.levels.size(); ++l) {
          double sum = 0;
          for (size_t o = 0; o < c.operands.size(); ++o) {
            if (schedule::loadsInto(c, o, l))
              sum += viz::operandTraffic(kernels[0], ss, o, l).totalBytes;
          }
          for (const auto &lc : ss.cost.levels) {
            if (lc.memory == c.levels[l].memory) {
              EXPECT_NEAR(sum, lc.bytes, 1e-6 * std::max(1.0, lc.bytes))
                  << instance << " s" << c.statement << " on " << target << " into "
                  << c.levels[l].name;
            }
          }
        }
      }
    }
  }
}

TEST(VizSchedule, SystemPlacementAndTransfers) {
  auto s = load(sample("mlp.isam"));
  std::string dot = render(*s, request(viz::What::Schedule, "mlp_mnist", "soc"));
  Svg svg = svgOf(dot);
  expectAll(svg.nodes,
            {"s0", "s1", "s2", "s3", "s4", "x86_avx512.tensor.X", "systolic16.tensor.X",
             "systolic16.tensor.W1"},
            "node");
  expectAll(svg.edges,
            {"x86_avx512.tensor.X->systolic16.tensor.X", "systolic16.tensor.X->s1",
             "s1->systolic16.tensor.Z1"},
            "edge");
  EXPECT_TRUE(inSubgraph(dot, "cluster_unit.systolic16", "s1"));
  EXPECT_TRUE(inSubgraph(dot, "cluster_unit.x86_avx512", "s2"));
  EXPECT_NE(dot.find("shared memory: no copy"), std::string::npos);
}

// ---- stability and degenerate inputs ---------------------------------------------------------

TEST(VizStability, SameInputSameDot) {
  for (viz::What what :
       {viz::What::Kernel, viz::What::Hardware, viz::What::Mapping, viz::What::Schedule}) {
    auto a = load(sample("dwsep.isam"));
    auto b = load(sample("dwsep.isam"));
    auto r = request(what, "dwsep_small", "x86_avx512");
    std::string x = render(*a, r), y = render(*b, r);
    EXPECT_FALSE(x.empty());
    EXPECT_EQ(x, y) << int(what);
    EXPECT_EQ(x, render(*a, r)) << int(what);
  }
}

TEST(VizRobustness, EmptyKernel) {
  ir::Kernel k;
  k.name = "nothing";
  svgOf(viz::kernelGraph(k));
  hw::Target t;
  t.name = "bare";
  svgOf(viz::hardwareGraph(t)); // no memory, no unit
  schedule::KernelSchedule ks;
  svgOf(viz::scheduleGraph(k, t, ks));
  mapping::StatementMappings m; // index 0 of a kernel without statements
  svgOf(viz::mappingGraph(k, m, t));
  svgOf(viz::partitionGraph(k, hw::System{}, {}, mapping::Partition{}));
}

TEST(VizRobustness, UnmappableStatement) {
  auto s = test::analyse("kernel e<N>(A: f32[N]) -> (B: f32[N]) { B[i] = exp(A[i]); }\n"
                         "instance e5 = e<5>;\n");
  ASSERT_FALSE(s->diagnostics().hasErrors());
  auto r = request(viz::What::Mapping, "e5", "systolic16");
  std::string dot = render(*s, r);
  Svg svg = svgOf(dot);
  EXPECT_TRUE(svg.nodes.count("unmapped"));
  EXPECT_TRUE(svg.nodes.count("rejected.mma"));
  EXPECT_TRUE(svg.nodes.count("stmt.i"));
  EXPECT_NE(dot.find("no instruction of systolic16 runs this statement"), std::string::npos);
  r.what = viz::What::Schedule;
  std::string sched = render(*s, r);
  EXPECT_TRUE(svgOf(sched).nodes.count("s0.scalar"));
  EXPECT_NE(sched.find("bound: scalar code"), std::string::npos);
}

TEST(VizRobustness, HugeKernelIsCapped) {
  std::string text = "kernel chain<N>(X0: f32[N]) -> (Y: f32[N]) {\n";
  for (int i = 1; i < 400; ++i)
    text += "  X" + std::to_string(i) + "[i] = relu(X" + std::to_string(i - 1) + "[i]);\n";
  text += "  Y[i] = X399[i];\n}\ninstance chain4 = chain<4>;\n";
  auto s = test::analyse(text);
  ASSERT_FALSE(s->diagnostics().hasErrors());
  auto k = s->instances({"chain4", "", {}});
  ASSERT_EQ(k.size(), 1u);
  ASSERT_EQ(k[0].statements.size(), 400u);
  viz::Options o;
  std::string dot = viz::kernelGraph(k[0], o);
  Svg svg = svgOf(dot);
  EXPECT_TRUE(svg.nodes.count("ellipsis"));
  EXPECT_TRUE(svg.nodes.count("s0"));
  // At most maxNodes counted nodes, plus the legend and the ellipsis.
  EXPECT_LE(svg.nodes.size(), o.maxNodes + 2);
  EXPECT_GE(svg.nodes.size(), o.maxNodes);
  EXPECT_NE(dot.find("more nodes"), std::string::npos);

  // A statement too long to show is cut, not dropped.
  std::string sum = "A[i]";
  for (int j = 0; j < 300; ++j)
    sum += " + A[i]";
  auto big = test::analyse("kernel big<N>(A: f32[N]) -> (B: f32[N]) { B[i] = " + sum +
                           "; }\ninstance big4 = big<4>;\n");
  auto kb = big->instances({"big4", "", {}});
  ASSERT_EQ(kb.size(), 1u);
  std::string bdot = viz::kernelGraph(kb[0]);
  EXPECT_NE(bdot.find("..."), std::string::npos);
  EXPECT_LT(bdot.size(), 20000u);
  svgOf(bdot);
}

// ---- requests the driver refuses ----------------------------------------------------------------

TEST(VizRequest, ProblemsAreDiagnostics) {
  {
    auto s = load(sample("gemm.isam")); // several instances, none chosen
    EXPECT_FALSE(viz::dotFor(*s, request(viz::What::Kernel, "")));
    ASSERT_FALSE(s->diagnostics().all().empty());
    EXPECT_NE(s->diagnostics().all().back().message.find("--instance"), std::string::npos);
  }
  {
    auto s = load(sample("gemm.isam")); // no target
    EXPECT_FALSE(viz::dotFor(*s, request(viz::What::Mapping, "gemm_small")));
    EXPECT_NE(s->diagnostics().all().back().message.find("--target"), std::string::npos);
  }
  {
    auto s = load(sample("gemm.isam"));
    auto r = request(viz::What::Mapping, "gemm_small", "systolic16");
    r.statement = 3;
    EXPECT_FALSE(viz::dotFor(*s, r));
    EXPECT_EQ(s->diagnostics().all().back().code, "E0202");
    EXPECT_NE(s->diagnostics().all().back().message.find("no statement s3"), std::string::npos);
  }
  {
    auto s = load(sample("gemm.isam"));
    EXPECT_FALSE(viz::dotFor(*s, request(viz::What::Hardware, "", "systolic61")));
    EXPECT_EQ(s->diagnostics().all().back().code, "E0202");
  }
  EXPECT_EQ(viz::parseWhat("schedule"), viz::What::Schedule);
  EXPECT_FALSE(viz::parseWhat("pictures"));
}
