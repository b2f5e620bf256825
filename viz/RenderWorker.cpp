#include "viz/RenderWorker.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace isam::viz {

namespace {

// The wire format, between two processes of the same binary on one machine:
//   job:    u8 format, u64 size, the DOT text
//   answer: u8 ok, u64 the worker's resident bytes, u64 size + data, u64 size + messages
// Sizes and numbers are in the machine's own byte order.

bool sendAll(int fd, const void *data, size_t size) {
  auto *at = static_cast<const char *>(data);
  while (size > 0) {
    // MSG_NOSIGNAL: a worker that died must not end this process with SIGPIPE.
    ssize_t n = ::send(fd, at, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    at += n;
    size -= size_t(n);
  }
  return true;
}

enum class Read { Ok, End, Late };

using Clock = std::chrono::steady_clock;

// Reads exactly `size` bytes; with a deadline, waits for them no longer than that.
Read readAll(int fd, void *data, size_t size, const Clock::time_point *deadline = nullptr) {
  auto *at = static_cast<char *>(data);
  while (size > 0) {
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
      if (left.count() <= 0)
        return Read::Late;
      pollfd p{fd, POLLIN, 0};
      int ready = ::poll(&p, 1, int(std::min<long long>(left.count(), 1 << 30)));
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready == 0)
        return Read::Late;
    }
    ssize_t n = ::read(fd, at, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return Read::End;
    at += n;
    size -= size_t(n);
  }
  return Read::Ok;
}

bool sendString(int fd, const std::string &s) {
  uint64_t size = s.size();
  return sendAll(fd, &size, sizeof size) && sendAll(fd, s.data(), s.size());
}

Read readString(int fd, std::string &s, const Clock::time_point *deadline = nullptr) {
  uint64_t size = 0;
  if (Read r = readAll(fd, &size, sizeof size, deadline); r != Read::Ok)
    return r;
  s.resize(size_t(size));
  return readAll(fd, s.data(), s.size(), deadline);
}

size_t residentBytes() {
  long pages = 0, resident = 0;
  if (FILE *f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    std::fclose(f);
  }
  return size_t(resident) * size_t(::sysconf(_SC_PAGESIZE));
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  unsigned jobs = 0;
};

struct State {
  std::mutex mutex;
  RenderWorkerOptions options;
  Worker worker;
  RenderWorkerStats stats;
};

// Never destroyed: a render may still run on another thread while the process exits, and the
// worker ends by itself when its socket closes with the process.
State &state() {
  static State *s = new State;
  return *s;
}

// Reaps the worker, stopping it if it still runs; returns how it ended ("" when it was stopped).
std::string endWorker(Worker &w, bool exiting = false) {
  std::string how;
  if (w.fd >= 0)
    ::close(w.fd);
  if (w.pid > 0) {
    int status = 0;
    // A worker whose socket closed is ending: give it a moment to finish, so that how it ended
    // can be told; one that is still running then is stopped.
    pid_t done = ::waitpid(w.pid, &status, WNOHANG);
    for (int i = 0; done == 0 && exiting && i < 200; ++i) {
      ::usleep(1000);
      done = ::waitpid(w.pid, &status, WNOHANG);
    }
    if (done == 0) {
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, &status, 0);
    } else if (done == w.pid) {
      if (WIFSIGNALED(status))
        how = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
              strsignal(WTERMSIG(status)) + ")";
      else if (WIFEXITED(status))
        how = "exit status " + std::to_string(WEXITSTATUS(status));
    }
  }
  w = Worker{};
  return how;
}

bool startWorker(State &s, std::string &error) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, ends[1], 0); // dup2 clears close-on-exec
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::vector<char *> argv;
  for (std::string &a : s.options.command)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int failed = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(ends[1]);
  if (failed != 0) {
    ::close(ends[0]);
    error = s.options.command[0] + ": " + std::strerror(failed);
    return false;
  }
  s.worker = Worker{pid, ends[0], 0};
  ++s.stats.started;
  return true;
}

void fallBack(State &s, const std::string &error) {
  s.stats.inProcess = true;
  std::cerr << "isamap: cannot start the render worker (" << error
            << "); rendering in this process\n";
}

struct Answer {
  Read read = Read::Ok;
  bool ok = false;
  uint64_t resident = 0;
  std::string data, messages;
};

Answer ask(const Worker &w, const std::string &dot, Format format, Clock::time_point deadline) {
  Answer a;
  uint8_t code = uint8_t(format);
  if (!sendAll(w.fd, &code, 1) || !sendString(w.fd, dot)) {
    a.read = Read::End;
    return a;
  }
  uint8_t ok = 0;
  if ((a.read = readAll(w.fd, &ok, 1, &deadline)) != Read::Ok ||
      (a.read = readAll(w.fd, &a.resident, sizeof a.resident, &deadline)) != Read::Ok ||
      (a.read = readString(w.fd, a.data, &deadline)) != Read::Ok ||
      (a.read = readString(w.fd, a.messages, &deadline)) != Read::Ok)
    return a;
  a.ok = ok != 0;
  return a;
}

} // namespace

void useRenderWorker(RenderWorkerOptions options) {
  State &s = state();
  std::lock_guard lock(s.mutex);
  endWorker(s.worker);
  s.options = std::move(options);
  s.stats = RenderWorkerStats{};
  // The first worker starts now, so that the first diagram does not wait for its start-up.
  std::string error;
  if (!s.options.command.empty() && !startWorker(s, error))
    fallBack(s, error);
}

RenderWorkerStats renderWorkerStats() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  RenderWorkerStats stats = s.stats;
  stats.pid = s.worker.pid;
  return stats;
}

namespace detail {

bool workerConfigured() {
  State &s = state();
  std::lock_guard lock(s.mutex);
  return !s.options.command.empty() && !s.stats.inProcess;
}

Rendered renderInWorker(const std::string &dot, Format format) {
  State &s = state();
  std::unique_lock lock(s.mutex);
  for (int attempt = 0;; ++attempt) {
    if (s.worker.pid < 0) {
      std::string error;
      if (!startWorker(s, error)) {
        fallBack(s, error);
        lock.unlock();
        return renderInProcess(dot, format);
      }
    }
    bool fresh = s.worker.jobs == 0;
    Answer a = ask(s.worker, dot, format, Clock::now() + s.options.timeout);
    if (a.read == Read::Ok) {
      ++s.worker.jobs;
      ++s.stats.jobs;
      if (s.worker.jobs >= s.options.maxJobs || a.resident > s.options.maxResidentBytes) {
        endWorker(s.worker);
        ++s.stats.retired;
        // The successor starts now, so that its start-up is not on the next job's time.
        std::string ignored; // a failure shows again, and is handled, at the next job
        startWorker(s, ignored);
      }
      Rendered out;
      out.ok = a.ok;
      out.data = std::move(a.data);
      out.error = std::move(a.messages);
      return out;
    }
    std::string how = endWorker(s.worker, a.read == Read::End);
    ++s.stats.lost;
    if (a.read == Read::Late) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", double(s.options.timeout.count()) / 1000);
      return {false, "",
              std::string("Graphviz took longer than ") + seconds +
                  " s to draw the graph; its worker process was stopped"};
    }
    // The damage that ended a worker which had rendered before may be an earlier job's.
    if (fresh || attempt > 0)
      return {false, "",
              "Graphviz's worker process ended while drawing the graph" +
                  (how.empty() ? std::string() : " (" + how + ")")};
  }
}

} // namespace detail

int serveRenderJobs(int fd) {
  // Graphviz loads its plugins and the font stack at the first layout: done before the first job
  // arrives, while the server still works on what it will ask for.
  renderInProcess("digraph { a [label=<<b>a</b>>]; }", Format::Svg);
  for (;;) {
    uint8_t code = 0;
    Read r = readAll(fd, &code, 1);
    if (r == Read::End)
      return 0;
    std::string dot;
    if (code > uint8_t(Format::Png) || readString(fd, dot) != Read::Ok)
      return 1;
    Rendered out = renderInProcess(dot, Format(code));
    uint8_t ok = out.ok ? 1 : 0;
    uint64_t resident = residentBytes();
    if (!sendAll(fd, &ok, 1) || !sendAll(fd, &resident, sizeof resident) ||
        !sendString(fd, out.data) || !sendString(fd, out.error))
      return 0; // the server has gone
  }
}

} // namespace isam::viz
