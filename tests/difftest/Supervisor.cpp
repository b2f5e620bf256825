#include "Supervisor.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace isam::difftest {

namespace {

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else
      out += c;
  }
  return out;
}

std::string unescape(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
  }
  return out;
}

std::vector<std::string> fields(const std::string &line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t')
      out.emplace_back();
    else
      out.back() += c;
  }
  for (auto &f : out)
    f = unescape(f);
  return out;
}

void writeAll(int fd, const std::string &s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      _exit(3); // the parent is gone
    done += size_t(n);
  }
}

[[noreturn]] void child(const std::vector<Job> &jobs, size_t first, size_t last, int fd) {
  setpgid(0, 0); // the parent kills the whole group (qemu too) on a timeout
  for (size_t i = first; i < last; ++i) {
    writeAll(fd, "B\t" + std::to_string(i) + "\n");
    KernelOutcome o = runKernel(jobs[i].text, jobs[i].instance, jobs[i].options,
                                [&](const std::string &t, const std::string &e) {
                                  writeAll(fd, "X\t" + escape(t) + "\t" + escape(e) + "\n");
                                });
    std::string msg;
    if (o.rejected)
      msg += "J\t" + escape(o.rejection) + "\n";
    if (o.unusable)
      msg += "U\t" + escape(o.unusableWhy) + "\n";
    for (const auto &e : o.executions)
      msg += "R\t" + escape(e.target) + "\t" + escape(e.executor) + "\t" +
             std::to_string(int(e.status)) + "\t" + escape(e.detail) + "\n";
    msg += "E\t" + std::to_string(i) + "\n";
    writeAll(fd, msg);
  }
  _exit(0);
}

std::string describeExit(int status) {
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status)) + " mid-kernel";
  return "died";
}

} // namespace

void runSupervised(const std::vector<Job> &jobs, double timeoutSeconds,
                   const std::function<void(size_t, const KernelOutcome &)> &report, size_t batch) {
  using Clock = std::chrono::steady_clock;
  size_t next = 0;
  while (next < jobs.size()) {
    size_t last = std::min(jobs.size(), next + std::max<size_t>(batch, 1));
    int fds[2];
    if (pipe(fds) != 0) {
      perror("isamap_difftest: pipe");
      std::exit(2);
    }
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
      perror("isamap_difftest: fork");
      std::exit(2);
    }
    if (pid == 0) {
      close(fds[0]);
      child(jobs, next, last, fds[1]);
    }
    setpgid(pid, pid); // also here: no race with the child's own call
    close(fds[1]);
    int fd = fds[0];

    bool inKernel = false;
    size_t current = next;
    std::string target = "(none)", executor = "check";
    KernelOutcome outcome;
    auto deadline = Clock::now();
    std::string buffer;
    bool ended = false, timedOut = false;
    while (!ended) {
      int waitMs = -1;
      if (inKernel) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        waitMs = int(std::max<int64_t>(0, left.count()));
      }
      pollfd p{fd, POLLIN, 0};
      int r = poll(&p, 1, waitMs);
      if (r < 0 && errno == EINTR)
        continue;
      if (r == 0) {
        timedOut = true;
        break;
      }
      char chunk[65536];
      ssize_t n = read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break; // the child is gone
      buffer.append(chunk, size_t(n));
      size_t nl;
      while ((nl = buffer.find('\n')) != std::string::npos) {
        auto f = fields(buffer.substr(0, nl));
        buffer.erase(0, nl + 1);
        const std::string &tag = f[0];
        if (tag == "B") {
          current = std::stoul(f[1]);
          inKernel = true;
          outcome = {};
          target = "(none)", executor = "check";
          deadline = Clock::now() + std::chrono::milliseconds(int64_t(timeoutSeconds * 1000));
        } else if (tag == "X" && f.size() >= 3) {
          target = f[1], executor = f[2];
        } else if (tag == "J") {
          outcome.rejected = true, outcome.rejection = f[1];
        } else if (tag == "U") {
          outcome.unusable = true, outcome.unusableWhy = f[1];
        } else if (tag == "R" && f.size() >= 5) {
          outcome.executions.push_back({f[1], f[2], Status(std::stoi(f[3])), f[4]});
        } else if (tag == "E") {
          report(current, outcome);
          inKernel = false;
          next = current + 1;
          if (next == last)
            ended = true;
        }
      }
    }
    if (timedOut || inKernel)
      kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(fd);
    if (inKernel) {
      std::string what = timedOut ? "no result within " + std::to_string(int(timeoutSeconds)) + " s"
                                  : describeExit(status);
      outcome.executions.push_back(
          {target, executor, timedOut ? Status::Timeout : Status::Crash, what});
      report(current, outcome);
      next = current + 1;
    } else if (next < last) {
      // The child died before starting a kernel: count it against that kernel.
      KernelOutcome o;
      o.executions.push_back({"(none)", "startup", Status::Crash, describeExit(status)});
      report(next, o);
      ++next;
    }
  }
}

} // namespace isam::difftest
