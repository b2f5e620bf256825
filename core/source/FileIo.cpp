#include "source/FileIo.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace isam {

bool writeAll(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    done += size_t(n);
  }
  return true;
}

bool writeFileAtomically(const std::string &path, std::string_view data, std::string &error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      error = "'" + path + "' is a directory";
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0 || !writeAll(fd, data)) {
        error = "cannot write '" + path + "': " + std::strerror(errno);
        if (fd >= 0)
          close(fd);
        return false;
      }
      close(fd);
      return true;
    }
  }
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    fs::path resolved = fs::weakly_canonical(target, ec);
    if (!ec)
      target = resolved;
  }
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(dir, ec)) {
    error = "the directory '" + dir.string() + "' does not exist";
    return false;
  }
  std::string base = ".";
  base.append(target.filename().string()).append(".tmp-XXXXXX");
  std::string tmpl = (dir / base).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) {
    error = "cannot create a file in '" + dir.string() + "': " + std::strerror(errno);
    return false;
  }
  std::string tmp(name.data());
  auto fail = [&](const std::string &what) {
    error = what + ": " + std::strerror(errno);
    if (fd >= 0)
      close(fd);
    unlink(tmp.c_str());
    return false;
  };
  // The permissions a plain new file would get (or those of the file replaced).
  mode_t mode;
  if (stat(target.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  // Messages name the file, not the temporary, which is gone by the time they are read.
  if (fchmod(fd, mode) != 0)
    return fail("cannot write '" + path + "' (setting the permissions of its replacement)");
  if (!writeAll(fd, data) || fsync(fd) != 0)
    return fail("cannot write '" + path + "'");
  int closed = close(fd);
  fd = -1;
  if (closed != 0)
    return fail("cannot write '" + path + "'");
  if (rename(tmp.c_str(), target.c_str()) != 0)
    return fail("cannot replace '" + target.string() + "'");
  return true;
}

} // namespace isam
