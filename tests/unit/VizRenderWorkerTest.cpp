// viz/RenderWorker: diagrams drawn by `isamap render-worker` processes are the in-process ones,
// workers are retired by their jobs and their memory, and a worker that dies, hangs or cannot
// start gives a clear error or in-process rendering, never a stuck or crashed caller.
#include "support/TestSupport.h"

#include "viz/RenderWorker.h"
#include "viz/Viz.h"

#include <gtest/gtest.h>

#include <csignal>

using namespace isam;

namespace {

viz::RenderWorkerOptions worker() {
  viz::RenderWorkerOptions o;
  o.command = {ISAMAP_BINARY, "render-worker"};
  return o;
}

// Every test leaves rendering in process, as the other tests of this binary expect it.
class VizRenderWorker : public ::testing::Test {
protected:
  void TearDown() override { viz::useRenderWorker({}); }

  // The schedule diagram of a sample: HTML labels, clusters, the paths where Graphviz leaks.
  static std::string scheduleDot() {
    Session s;
    EXPECT_TRUE(s.loadFile(test::sourceDir() + "/samples/gemm.isam"));
    viz::Request r;
    r.what = viz::What::Schedule;
    r.selector.instance = "gemm_small";
    r.target = "systolic16";
    return viz::dotFor(s, r).value_or("");
  }
};

TEST_F(VizRenderWorker, DrawsWhatInProcessRenderingDraws) {
  std::string dot = scheduleDot();
  ASSERT_FALSE(dot.empty());
  viz::useRenderWorker(worker());
  for (viz::Format f : {viz::Format::Svg, viz::Format::Png, viz::Format::Dot}) {
    viz::Rendered here = viz::renderInProcess(dot, f);
    viz::Rendered there = viz::render(dot, f);
    ASSERT_TRUE(here.ok) << here.error;
    EXPECT_TRUE(there.ok) << there.error;
    EXPECT_EQ(there.data, here.data) << int(f);
  }
  viz::Rendered bad = viz::render("digraph { a -> ; }", viz::Format::Svg);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error, viz::renderInProcess("digraph { a -> ; }", viz::Format::Svg).error);
  viz::RenderWorkerStats stats = viz::renderWorkerStats();
  EXPECT_EQ(stats.started, 1u);
  EXPECT_EQ(stats.jobs, 4u);
  EXPECT_EQ(stats.lost, 0u);
  EXPECT_GT(stats.pid, 0);
}

TEST_F(VizRenderWorker, RetiresAfterItsJobsAndAFreshOneGoesOn) {
  viz::RenderWorkerOptions o = worker();
  o.maxJobs = 3;
  viz::useRenderWorker(o);
  for (int i = 0; i < 7; ++i)
    ASSERT_TRUE(viz::render("digraph { a -> b; }", viz::Format::Svg).ok) << i;
  viz::RenderWorkerStats stats = viz::renderWorkerStats();
  EXPECT_EQ(stats.started, 3u);
  EXPECT_EQ(stats.retired, 2u);
  EXPECT_EQ(stats.jobs, 7u);
}

TEST_F(VizRenderWorker, RetiresOnceItsMemoryPassesTheBound) {
  viz::RenderWorkerOptions o = worker();
  o.maxResidentBytes = 1; // any process is above it: every worker draws one diagram
  viz::useRenderWorker(o);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(viz::render("digraph { a -> b; }", viz::Format::Svg).ok) << i;
  viz::RenderWorkerStats stats = viz::renderWorkerStats();
  EXPECT_EQ(stats.retired, 3u);
  EXPECT_EQ(stats.started, 4u); // each retired worker's successor starts at once
  EXPECT_GT(stats.pid, 0);
}

TEST_F(VizRenderWorker, AJobIsTriedAgainWhenAWorkerThatHadDrawnDies) {
  viz::useRenderWorker(worker());
  ASSERT_TRUE(viz::render("digraph { a -> b; }", viz::Format::Svg).ok);
  int pid = viz::renderWorkerStats().pid;
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGKILL); // as Graphviz's heap damage would end it
  viz::Rendered r = viz::render("digraph { a -> b; }", viz::Format::Svg);
  EXPECT_TRUE(r.ok) << r.error;
  viz::RenderWorkerStats stats = viz::renderWorkerStats();
  EXPECT_EQ(stats.lost, 1u);
  EXPECT_EQ(stats.started, 2u);
  EXPECT_NE(stats.pid, pid);
}

TEST_F(VizRenderWorker, AWorkerThatDiesOnAJobGivesTheReason) {
  viz::RenderWorkerOptions o;
  o.command = {"/bin/sh", "-c", "exit 3"}; // ends before answering, as a crash would
  viz::useRenderWorker(o);
  viz::Rendered r = viz::render("digraph { a -> b; }", viz::Format::Svg);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("worker process ended while drawing"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("exit status 3"), std::string::npos) << r.error;
  EXPECT_EQ(viz::renderWorkerStats().lost, 1u);
}

TEST_F(VizRenderWorker, AHungWorkerIsStoppedAtTheTimeout) {
  viz::RenderWorkerOptions o;
  o.command = {"/bin/sh", "-c", "exec sleep 30"}; // never answers
  o.timeout = std::chrono::milliseconds(200);
  viz::useRenderWorker(o);
  viz::Rendered r = viz::render("digraph { a -> b; }", viz::Format::Svg);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("longer than 0.2 s"), std::string::npos) << r.error;
  viz::RenderWorkerStats stats = viz::renderWorkerStats();
  EXPECT_EQ(stats.lost, 1u);
  EXPECT_EQ(stats.pid, -1);
}

TEST_F(VizRenderWorker, AWorkerThatCannotStartLeavesRenderingInProcess) {
  viz::RenderWorkerOptions o;
  o.command = {"/nonexistent/isamap", "render-worker"};
  testing::internal::CaptureStderr();
  viz::useRenderWorker(o);
  viz::Rendered r = viz::render("digraph { a -> b; }", viz::Format::Svg);
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_NE(said.find("cannot start the render worker"), std::string::npos) << said;
  EXPECT_TRUE(viz::renderWorkerStats().inProcess);
  EXPECT_TRUE(viz::render("digraph { a -> b; }", viz::Format::Svg).ok);
}

} // namespace
