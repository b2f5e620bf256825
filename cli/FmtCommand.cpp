// `isamap fmt FILE... [--check | --stdout]`: formats .isam files (core/format/Formatter.h).
//
// By default each file is rewritten in place, atomically (a temporary beside it, then a rename,
// keeping its permissions; a symbolic link is followed), and only if formatting changes it.
// `--check` writes nothing, lists the files that would change on stdout and exits 1 if any
// would (gofmt -l, rustfmt --check); `--stdout` prints the formatted texts instead of writing
// them (clang-format's default). FILE `-` reads stdin and prints to stdout. Exit codes: 0 done
// (or, with --check, nothing to change), 1 a file would change under --check or could not be
// read, formatted or written (the others are still processed), 2 usage.
#include "Commands.h"
#include "format/Formatter.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace isam::cli {

namespace {

// The whole file, or nullopt with `error` set.
std::optional<std::string> readText(const std::string &path, std::string &error) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    if (std::cin.bad()) {
      error = "cannot read stdin";
      return std::nullopt;
    }
    return ss.str();
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    error = "cannot read '" + path + "': it is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  return text;
}

bool writeAll(int fd, const std::string &data) {
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

// Replaces the file at `path` (which was just read) with `data`: written to a temporary in the
// same directory, then renamed over it, so that the file is always either the old text or the
// whole new one; on failure nothing is left behind. A symbolic link is followed: the file it
// names is replaced and the link stays. The permissions are the old file's.
bool replaceFile(const std::string &path, const std::string &data, std::string &error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    fs::path resolved = fs::canonical(target, ec);
    if (ec) {
      error = "cannot resolve the link '" + path + "': " + ec.message();
      return false;
    }
    target = resolved;
  }
  struct stat st;
  if (stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "'" + path + "' is not a regular file; use --stdout";
    return false;
  }
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string pattern = (dir / ("." + target.filename().string() + ".fmt-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
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
  // Messages name the file, not the temporary, which is gone by the time they are read.
  if (fchmod(fd, st.st_mode & 07777) != 0)
    return fail("cannot write '" + path + "' (setting the permissions of its replacement)");
  if (!writeAll(fd, data) || fsync(fd) != 0)
    return fail("cannot write '" + path + "'");
  int closed = close(fd);
  fd = -1;
  if (closed != 0)
    return fail("cannot write '" + path + "'");
  if (rename(tmp.c_str(), target.c_str()) != 0)
    return fail("cannot replace '" + path + "'");
  return true;
}

} // namespace

Action registerFmt(CLI::App &app) {
  struct Options {
    std::vector<std::string> files;
    bool check = false;
    bool toStdout = false;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand("fmt", "Format .isam files in place (canonical spacing and "
                                        "indentation; line breaks and comments kept)");
  cmd->add_option("files", opts->files, "The .isam files to format ('-': stdin to stdout)")
      ->required();
  auto *check = cmd->add_flag("--check", opts->check,
                              "Write nothing; list the files that would change and exit 1 if "
                              "any would");
  cmd->add_flag("--stdout", opts->toStdout, "Print the formatted texts instead of writing them")
      ->excludes(check);
  return [opts]() {
    bool failed = false, wouldChange = false;
    for (const auto &file : opts->files) {
      std::string error;
      std::optional<std::string> text = readText(file, error);
      if (!text) {
        std::cerr << "isamap: error: " << error << "\n";
        failed = true;
        continue;
      }
      std::string whyNot;
      std::optional<std::string> formatted = format::formatText(*text, {}, &whyNot);
      std::string shown = file == "-" ? "<stdin>" : file;
      if (!formatted) {
        std::cerr << "isamap: error: " << shown << ": " << whyNot << "\n";
        failed = true;
        continue;
      }
      bool changes = *formatted != *text;
      if (opts->check) {
        if (changes) {
          std::cout << shown << "\n";
          wouldChange = true;
        }
      } else if (opts->toStdout || file == "-") {
        std::cout << *formatted;
      } else if (changes && !replaceFile(file, *formatted, error)) {
        std::cerr << "isamap: error: " << error << "\n";
        failed = true;
      }
    }
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "isamap: error: cannot write to stdout\n";
      failed = true;
    }
    return failed || wouldChange ? 1 : 0;
  };
}

} // namespace isam::cli
