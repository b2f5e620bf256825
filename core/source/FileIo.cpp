#include "source/FileIo.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace isam {

bool writeAll(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    done += size_t(n);
  }
  return true;
}

namespace {

// The temporaries to remove if the process is killed. A fixed table of fixed buffers: the
// signal handler may only read memory that nothing frees or moves under it. A slot is Free,
// then Claimed while its path is copied in, then Active (the handler unlinks only those).
enum SlotState : int { Free, Claimed, Active };
struct TempSlot {
  std::atomic<int> state{Free};
  char path[PATH_MAX];
};
constexpr int kSlots = 64;
TempSlot slots[kSlots];

void unlinkActive() {
  for (auto &s : slots)
    if (s.state.load(std::memory_order_acquire) == Active)
      unlink(s.path); // async-signal-safe
}

extern "C" void removeTemporariesAndReraise(int sig) {
  int saved = errno;
  unlinkActive();
  // SA_RESETHAND restored the default disposition; the signal is blocked until this handler
  // returns, and then kills the process as it would have.
  raise(sig);
  errno = saved;
}

void installCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGABRT}) {
      struct sigaction old;
      if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL ||
          (old.sa_flags & SA_SIGINFO))
        continue; // the program handles (or ignores) it itself
      struct sigaction sa;
      std::memset(&sa, 0, sizeof sa);
      sa.sa_handler = removeTemporariesAndReraise;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND;
      sigaction(sig, &sa, nullptr);
    }
    std::atexit(unlinkActive);
  });
}

// The slot now holding `path` for the handler, or -1 (a path too long, or the table full: the
// temporary is then removed only by its OutputFile).
int registerTemporary(const std::string &path) {
  installCleanup();
  if (path.size() >= PATH_MAX)
    return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = Free;
    if (slots[i].state.compare_exchange_strong(expected, Claimed)) {
      std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
      slots[i].state.store(Active, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void unregisterTemporary(int slot) {
  if (slot >= 0)
    slots[slot].state.store(Free, std::memory_order_release);
}

std::string parentOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string nameOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

OutputFile::~OutputFile() {
  abandon();
}

void OutputFile::abandon() {
  if (fd_ >= 0)
    close(fd_);
  fd_ = -1;
  if (!temp_.empty())
    unlink(temp_.c_str());
  unregisterTemporary(slot_);
  slot_ = -1;
  temp_.clear();
}

bool OutputFile::open(const std::string &path, std::string &error, unsigned mode) {
  abandon();
  path_ = target_ = path;
  through_ = false;
  error_.clear();
  auto failed = [&](const std::string &what) {
    error = what;
    abandon();
    return false;
  };
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode))
      return failed("cannot write '" + path + "': it is a directory");
    // A link, a device, a FIFO: written through. A link may name nothing yet (then the file it
    // names is created) or a directory (open fails with EISDIR).
    through_ = true;
    int flags = O_WRONLY | O_CLOEXEC | (S_ISLNK(st.st_mode) ? O_CREAT | O_TRUNC : 0);
    fd_ = ::open(path.c_str(), flags, mode);
    if (fd_ < 0)
      return failed("cannot write '" + path + "': " + std::strerror(errno));
    return true;
  }
  std::string dir = parentOf(path);
  struct stat ds;
  if (stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode))
    return failed("cannot write '" + path + "': the directory '" + dir + "' does not exist");
  std::string tmpl = (dir == "/" ? "/" : dir + "/") + "." + nameOf(path) + ".tmp-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  fd_ = mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0)
    return failed("cannot write '" + path + "': cannot create a file in '" + dir +
                  "': " + std::strerror(errno));
  temp_ = name.data();
  slot_ = registerTemporary(temp_);
  // The permissions a plain new file would get, or those of the file replaced.
  mode_t perms;
  if (stat(path.c_str(), &st) == 0) {
    perms = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    perms = mode_t(mode) & ~mask;
  }
  if (fchmod(fd_, perms) != 0)
    return failed("cannot write '" + path +
                  "' (setting the permissions of its replacement): " + std::strerror(errno));
  return true;
}

bool OutputFile::write(std::string_view data) {
  if (fd_ < 0) {
    if (error_.empty())
      error_ = "cannot write '" + path_ + "': it is not open";
    return false;
  }
  if (!writeAll(fd_, data)) {
    error_ = "cannot write '" + path_ + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool OutputFile::commit(std::string &error) {
  if (!error_.empty()) {
    error = error_;
    abandon();
    return false;
  }
  if (fd_ < 0) {
    error = "cannot write '" + path_ + "': it is not open";
    return false;
  }
  // Messages name the file, not the temporary, which is gone by the time they are read.
  if ((!through_ && fsync(fd_) != 0) || close(fd_) != 0) {
    fd_ = -1;
    error = "cannot write '" + path_ + "': " + std::strerror(errno);
    abandon();
    return false;
  }
  fd_ = -1;
  if (!through_ && rename(temp_.c_str(), target_.c_str()) != 0) {
    error = "cannot replace '" + target_ + "': " + std::strerror(errno);
    abandon();
    return false;
  }
  unregisterTemporary(slot_);
  slot_ = -1;
  temp_.clear();
  return true;
}

ScopedTemporary::ScopedTemporary(std::string path) : path_(std::move(path)) {
  slot_ = registerTemporary(path_);
}

ScopedTemporary::~ScopedTemporary() {
  unlink(path_.c_str());
  unregisterTemporary(slot_);
}

bool writeFileAtomically(const std::string &path, std::string_view data, std::string &error) {
  OutputFile out;
  if (!out.open(path, error))
    return false;
  if (!out.write(data)) {
    error = out.error();
    return false;
  }
  return out.commit(error);
}

} // namespace isam
