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
#include "source/FileIo.h"

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
      } else if (changes && !writeFileAtomically(file, *formatted, error)) {
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
