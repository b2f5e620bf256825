// `isamap completion bash|zsh` and `isamap man`, generated from the option definitions: the
// scripts parse and complete subcommands, options and option values in a real bash and zsh, and
// the manual page renders without a warning and lists every command and option `--help` shows.
#include "support/TestSupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

using namespace isam;

namespace {

const std::string kIsamap = ISAMAP_BINARY;

bool has(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

// The subcommands `isamap --help` lists.
std::vector<std::string> subcommands() {
  auto help = test::run(kIsamap + " --help");
  std::vector<std::string> out;
  std::regex line(R"(\n  ([a-z-]+) {2,})");
  for (std::sregex_iterator it(help.out.begin(), help.out.end(), line), end; it != end; ++it)
    out.push_back((*it)[1]);
  return out;
}

// What bash completes for the words (the last one being completed).
std::string bashCompletes(const std::string &script, const std::string &words) {
  std::string cmd = "source " + script + "; COMP_WORDS=(" + words +
                    "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _isamap; echo \"${COMPREPLY[*]}\"";
  auto r = test::run("bash -c '" + cmd + "'");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return r.out;
}

} // namespace

TEST(CompletionCli, BashCompletesCommandsOptionsAndValues) {
  std::string script = test::tempFile("completion", "isamap.bash", "");
  auto r = test::run(kIsamap + " completion bash -o " + script);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(test::run("bash -n " + script).exitCode, 0);
  EXPECT_EQ(bashCompletes(script, "isamap ru"), "run\n");
  EXPECT_EQ(bashCompletes(script, "isamap sch"), "schedule\n");
  EXPECT_EQ(bashCompletes(script, "isamap run x.isam --ref"), "--reference\n");
  EXPECT_EQ(bashCompletes(script, "isamap run --reference \"\""), "rows points\n");
  EXPECT_EQ(bashCompletes(script, "isamap run --format = j"), "json\n");
  EXPECT_EQ(bashCompletes(script, "isamap check --format \"\""), "text json sarif github\n");
  EXPECT_EQ(bashCompletes(script, "isamap schedule --search b"), "beam\n");
  EXPECT_EQ(bashCompletes(script, "isamap run --seed \"\""), "\n") << "a number: no files";
  // Every subcommand is offered.
  std::string all = bashCompletes(script, "isamap \"\"");
  for (const auto &c : subcommands()) {
    if (c != "render-worker") {
      EXPECT_TRUE(has(all, c)) << c << " missing from: " << all;
    }
  }
}

TEST(CompletionCli, ZshScriptParsesAndDescribesEachCommand) {
  std::string script = test::tempFile("completion", "_isamap", "");
  ASSERT_EQ(test::run(kIsamap + " completion zsh -o " + script).exitCode, 0);
  auto parsed = test::run("zsh -n " + script);
  EXPECT_EQ(parsed.exitCode, 0) << parsed.err;
  // With _arguments and _describe replaced by printers: what `isamap run <TAB>` asks zsh for.
  auto r = test::run("zsh -c '_arguments() { print -l -- \"$@\" }; _describe() { print -l -- "
                     "${(P)2} }; words=(isamap run x.isam); CURRENT=3; source " +
                     script + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(has(r.out, "--reference[The reference interpreter")) << r.out;
  EXPECT_TRUE(has(r.out, ":rows|points:(rows points)")) << r.out;
  EXPECT_TRUE(has(r.out, "(-t --target)-t[")) << r.out;
  EXPECT_TRUE(has(r.out, "*-I[Directory searched for imports]:DIR:_files")) << r.out;
  auto top = test::run("zsh -c '_arguments() { print -l -- \"$@\" }; _describe() { print -l -- "
                       "${(P)2} }; words=(isamap); CURRENT=2; source " +
                       script + "'");
  EXPECT_TRUE(has(top.out, "schedule:Choose and print a schedule")) << top.out;
}

TEST(ManCli, RendersWithoutWarningsAndListsEveryCommandAndOption) {
  std::string page = test::tempFile("man", "isamap.1", "");
  ASSERT_EQ(test::run(kIsamap + " man -o " + page).exitCode, 0);
  auto warnings = test::run("groff -man -ww -z " + page);
  EXPECT_EQ(warnings.exitCode, 0);
  EXPECT_EQ(warnings.err, "");
  auto rendered = test::run("MANWIDTH=100 man -l " + page);
  ASSERT_EQ(rendered.exitCode, 0) << rendered.err;
  for (const auto &c : subcommands()) {
    if (c == "render-worker")
      continue;
    EXPECT_TRUE(has(rendered.out, "isamap " + c)) << c;
    // Each long option of the command's --help, in the page.
    auto help = test::run(kIsamap + " " + c + " --help");
    std::regex option(R"(--[a-z][a-z-]+)");
    for (std::sregex_iterator it(help.out.begin(), help.out.end(), option), end; it != end; ++it)
      EXPECT_TRUE(has(rendered.out, it->str())) << c << " " << it->str();
  }
  EXPECT_TRUE(has(rendered.out, "ISAMAP_PROGRESS"));
}
