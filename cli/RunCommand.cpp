// `isamap run FILE --interpret`: executes the selected instances with the reference
// interpreter on seeded random inputs and prints a summary of each output.
#include "Commands.h"
#include "Common.h"
#include "interp/Interpreter.h"

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace isam::cli {

Action registerRun(CLI::App &app) {
  struct Options {
    std::string file;
    CommonOptions common;
    SelectorOptions selector;
    bool interpret = false;
    uint64_t seed = 1;
    size_t show = 8;
  };
  auto opts = std::make_shared<Options>();
  auto *cmd = app.add_subcommand("run", "Run instances on seeded random inputs");
  cmd->add_option("file", opts->file, "The .isam file")->required();
  cmd->add_flag("--interpret", opts->interpret, "Run with the reference interpreter")->required();
  cmd->add_option("--seed", opts->seed, "Seed of the random inputs");
  cmd->add_option("--show", opts->show, "Output values printed per tensor");
  addCommonOptions(*cmd, opts->common);
  addSelectorOptions(*cmd, opts->selector);
  return [opts]() {
    Session session(sessionOptions(opts->common));
    std::vector<ir::Kernel> kernels;
    if (!loadInstances(session, opts->file, opts->selector, opts->common.format, kernels, "run"))
      return 1;
    nlohmann::json results = nlohmann::json::array();
    for (const auto &k : kernels) {
      interp::Buffers buffers = interp::randomInputs(k, opts->seed);
      auto start = std::chrono::steady_clock::now();
      interp::run(k, buffers);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                      .count();
      nlohmann::json outputs = nlohmann::json::array();
      if (opts->common.format == Format::Text)
        std::cout << k.name << ": interpreted in " << ms << " ms (seed " << opts->seed << ")\n";
      for (size_t t = 0; t < k.tensors.size(); ++t) {
        if (k.tensors[t].role != ir::TensorRole::Output)
          continue;
        double sum = 0, sumAbs = 0;
        for (double v : buffers[t])
          sum += v, sumAbs += std::fabs(v);
        std::vector<double> first(buffers[t].begin(),
                                  buffers[t].begin() + std::min(opts->show, buffers[t].size()));
        outputs.push_back({{"tensor", k.tensors[t].name},
                           {"elements", buffers[t].size()},
                           {"sum", sum},
                           {"sumAbs", sumAbs},
                           {"first", first}});
        if (opts->common.format == Format::Text) {
          std::cout << "  " << k.tensors[t].name << ": " << buffers[t].size()
                    << " elements, sum " << sum << ", sum|x| " << sumAbs << ", first";
          for (double v : first)
            std::cout << " " << v;
          std::cout << "\n";
        }
      }
      results.push_back({{"instance", k.name}, {"milliseconds", ms}, {"outputs", outputs}});
    }
    if (opts->common.format == Format::Json)
      std::cout << results.dump(2) << "\n";
    return 0;
  };
}

} // namespace isam::cli
