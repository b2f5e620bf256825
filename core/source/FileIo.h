// Writing files so that nothing is ever half-written: the one output policy of every command
// that writes a file (compile -o, viz -o, run --trace, fmt, the benches).
//
// Policy, by what the path names when it is opened:
//   - a regular file, or nothing yet: written to a temporary `.NAME.tmp-XXXXXX` in the same
//     directory, flushed to disk and renamed over NAME on commit, so that NAME is either the old
//     file or the whole new one; a replaced file keeps its permissions;
//   - a symbolic link, a device (/dev/null), a FIFO: opened and written through, never
//     replaced (a rename would put a regular file where the link or the device was);
//   - a directory, or a directory that does not exist: an error, before anything is written.
// Temporaries are removed on every exit path: when the OutputFile is destroyed uncommitted, at
// exit(), and on SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE and SIGABRT (a handler that unlinks
// the registered temporaries with async-signal-safe calls, then re-raises the signal). The
// handler is installed only for signals whose disposition is still the default.
#pragma once

#include <string>
#include <string_view>

namespace isam {

// Writes all of `data` to `fd`, retrying interrupted and partial writes; false on an error.
bool writeAll(int fd, std::string_view data);

class OutputFile {
public:
  OutputFile() = default;
  ~OutputFile(); // uncommitted: the temporary is removed (a written-through file keeps its bytes)
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  // Opens `path` under the policy; a new file gets `mode` less the umask. False, with `error`
  // naming the path, when it cannot be written.
  bool open(const std::string &path, std::string &error, unsigned mode = 0666);
  // Appends `data`; false (and error() says why) on a failed write.
  bool write(std::string_view data);
  // A temporary flushed and renamed into place; a written-through file closed. False with
  // `error` set on failure (the temporary is then removed).
  bool commit(std::string &error);

  int fd() const { return fd_; }
  bool writesThrough() const { return through_; }
  const std::string &error() const { return error_; }

private:
  void abandon();

  std::string path_, target_, temp_, error_;
  int fd_ = -1;
  int slot_ = -1; // the temporary's entry in the signal handler's table
  bool through_ = false;
};

// A temporary a tool writes by name (a linker's output): removed on destruction, at exit() and
// on the signals above.
class ScopedTemporary {
public:
  explicit ScopedTemporary(std::string path);
  ~ScopedTemporary();
  ScopedTemporary(const ScopedTemporary &) = delete;
  ScopedTemporary &operator=(const ScopedTemporary &) = delete;
  const std::string &path() const { return path_; }

private:
  std::string path_;
  int slot_ = -1;
};

// `data` written to `path` under the policy above; false (with `error` set, and nothing left
// behind) on failure.
bool writeFileAtomically(const std::string &path, std::string_view data, std::string &error);

} // namespace isam
