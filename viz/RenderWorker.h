// Rendering in a worker process, so that what Graphviz does wrong cannot accumulate in a
// long-lived one. Debian 12's Graphviz (2.42) leaks in its layout and HTML-label paths (~65 KB
// per schedule diagram) and corrupts its own heap on some graphs (a use after free in its pango
// plugin, a double free under gvFreeLayout); in the language server, which renders on every
// edit, that is unbounded memory and a crash waiting to happen.
//
// After useRenderWorker(), viz::render() sends each job to a worker (`isamap render-worker`,
// which runs serveRenderJobs() on its standard input, a socket) and waits for its answer. A
// worker is retired (killed and reaped) after `maxJobs` renders or once its resident memory
// passes `maxResidentBytes`, and the next render starts a fresh one, so the memory of the
// rendering side stays bounded however long the server runs. A render that takes longer than
// `timeout`, or a worker that dies, gives a failed Rendered with the reason; a job that killed
// a worker which had rendered before is tried once more in a fresh one (the damage may have
// been done by an earlier job). A worker that cannot be started at all makes render() fall back
// to rendering in process, with the reason printed on standard error.
//
// Jobs are serialised (one worker at a time), as in-process rendering is.
#pragma once

#include "viz/Render.h"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace isam::viz {

struct RenderWorkerOptions {
  std::vector<std::string> command; // the worker's argv; command[0] is an executable's path
  unsigned maxJobs = 200;
  size_t maxResidentBytes = size_t(192) << 20;
  std::chrono::milliseconds timeout{30000};
};

// From now on render() goes through workers, the first of which starts now; an empty command
// turns them off again (the current worker, if any, is retired).
void useRenderWorker(RenderWorkerOptions options);

struct RenderWorkerStats {
  unsigned started = 0;   // workers started
  unsigned retired = 0;   // workers ended by the policy (jobs or memory)
  unsigned lost = 0;      // workers that died or overran the timeout
  unsigned jobs = 0;      // jobs answered by a worker
  bool inProcess = false; // a worker could not be started: rendering falls back to this process
  int pid = -1;           // the running worker's process id, -1 when none runs
};
// Counted since the last useRenderWorker().
RenderWorkerStats renderWorkerStats();

// The worker's side: answers jobs read from `fd` until the other end closes it. Returns the
// process's exit status (0 at a clean end, 1 on a malformed job).
int serveRenderJobs(int fd);

namespace detail {
// Sends one job to a worker (render() calls this once useRenderWorker() was given a command).
Rendered renderInWorker(const std::string &dot, Format format);
bool workerConfigured();
} // namespace detail

} // namespace isam::viz
