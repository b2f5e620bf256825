// The header-only libraries' probe: nlohmann_json, Boost.Asio and CLI11 compile and work.
#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>

int main(int argc, char **argv) {
  CLI::App app("probe");
  int n = 0;
  app.add_option("-n", n);
  CLI11_PARSE(app, argc, argv);
  auto j = nlohmann::json::parse(R"({"n": [1, 2, 3]})");
  boost::asio::io_context io;
  int posted = 0;
  boost::asio::post(io, [&] { posted = 1; });
  io.run();
  if (n != 7 || j["n"].size() != 3 || posted != 1)
    return 1;
  std::puts("ok");
  return 0;
}
