// `isamap targets [-I DIR]...`: what `--target` accepts. `host` (this machine, as detected and
// calibrated) first, then every target declared in the descriptions of the -I directories and
// the shipped hwdesc/, each with its file, what runs it (native code for a triple, or the
// simulator), its cores and clock, its arithmetic peak and its memories; text or JSON.
#include "Commands.h"
#include "Common.h"
#include "Memory.h"
#include "report/Json.h"
#include "source/Quantities.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

namespace isam::cli {

namespace {

struct Listed {
  hw::Target target;
  std::string file; // the description declaring it; "" for host
};

// The descriptions of a directory, in name order.
std::vector<std::string> descriptions(const std::string &dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".isam")
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Every target the files declare themselves (not those they import), once by name: an -I
// directory's comes before a shipped one of the same name, as `--target` resolves them.
std::vector<Listed> declaredTargets(const CommonOptions &common, int &unreadable) {
  std::vector<Listed> out;
  std::set<std::string> seen;
  std::vector<std::string> dirs = common.includeDirs;
  dirs.push_back(defaultHwdescDir());
  for (const auto &dir : dirs)
    for (const auto &file : descriptions(dir)) {
      Session session(sessionOptions(common));
      if (!session.loadFile(file)) {
        ++unreadable;
        continue;
      }
      FileId main = session.mainFile()->id;
      for (const auto &[name, decl] : session.symbols().targets) {
        if (decl->range.file != main || seen.count(name))
          continue;
        if (auto t = session.target(name)) {
          seen.insert(name);
          out.push_back({std::move(*t), file});
        } else {
          ++unreadable;
        }
      }
    }
  return out;
}

nlohmann::json toJson(const Listed &l) {
  nlohmann::json j = report::targetJson(l.target);
  j["file"] = l.file;
  return j;
}

// The text form, from the JSON form: one definition of every figure.
void printText(const nlohmann::json &t) {
  double gflops = t["peakGflops"];
  std::string peak = gflops > 0 ? formatNumber(gflops) + " GFLOP/s" : "none described";
  std::string file = t["file"], triple = t["triple"], cpu = t["cpu"];
  int cores = t["cores"];
  std::cout << t["name"].get<std::string>() << "  (" << (file.empty() ? "this machine" : file)
            << ")\n"
            << "  runs on: "
            << (triple.empty() ? "simulator" : triple + (cpu.empty() ? "" : " " + cpu)) << "; "
            << countOf(cores, "core") << " at " << formatNumber(t["clockGHz"].get<double>())
            << " GHz; peak " << peak << "\n"
            << "  memories:";
  for (size_t m = 0; m < t["memories"].size(); ++m)
    std::cout << (m ? ", " : " ") << t["memories"][m]["name"].get<std::string>() << " "
              << formatBytes(t["memories"][m]["bytes"].get<double>());
  std::cout << "\n";
}

} // namespace

Action registerTargets(CLI::App &app) {
  auto opts = std::make_shared<CommonOptions>();
  auto *cmd = app.add_subcommand(
      "targets", "List the targets --target accepts: host, the -I directories' and the shipped "
                 "descriptions, with their peaks and memories");
  addCommonOptions(*cmd, *opts);
  return [opts]() {
    std::vector<Listed> all;
    Session hostSession(sessionOptions(*opts)); // calibrated, as `run` measures it
    hostSession.loadText("targets.isam", "");   // shipped descriptions load beside a main file
    if (auto host = hostSession.target("host"))
      all.push_back({std::move(*host), ""});
    int unreadable = 0;
    for (auto &l : declaredTargets(*opts, unreadable))
      all.push_back(std::move(l));
    if (opts->format == Format::Json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto &l : all)
        out.push_back(toJson(l));
      printJsonDocument({{"targets", out}});
    } else {
      for (const auto &l : all)
        printText(toJson(l));
    }
    if (unreadable)
      std::cerr << "isamap targets: " << unreadable
                << (unreadable == 1 ? " description has" : " descriptions have")
                << " errors (isamap check FILE shows them)\n";
    return 0;
  };
}

} // namespace isam::cli
