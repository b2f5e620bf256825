// `isamap man`: the isamap(1) manual page in troff (man -l), generated from the option
// definitions themselves (CommandModel.h), so it documents exactly the options the binary has.
// The README stays the guide; the page is the reference a terminal has at hand.
#include "CommandModel.h"
#include "Commands.h"

#include "Common.h"

#include <iostream>
#include <memory>
#include <sstream>

namespace isam::cli {

namespace {

// Text for troff: backslashes doubled, hyphens as \-, and a line that would start with a
// control character ('.' or ') protected.
std::string roff(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\''))
    out = "\\&" + out;
  return out;
}

std::string synopsis(const CommandModel &c) {
  std::string s = "\\fBisamap " + roff(c.name) + "\\fR";
  bool options = false;
  for (const auto &o : c.options)
    options = options || !o.positional;
  if (options)
    s += " [\\fIoptions\\fR]";
  for (const auto &o : c.options)
    if (o.positional)
      s += " \\fI" + roff(o.names[0]) + "\\fR" + (o.repeated ? "..." : "");
  return s;
}

std::string page(const std::vector<CommandModel> &commands, const std::string &version) {
  std::ostringstream s;
  s << ".TH ISAMAP 1 \"\" \"" << roff(version) << "\" \"User Commands\"\n"
    << ".SH NAME\nisamap \\- map deep\\-learning kernels onto described hardware\n"
    << ".SH SYNOPSIS\n\\fBisamap\\fR \\fIcommand\\fR [\\fIoptions\\fR] [\\fIfile\\fR...]\n"
    << ".br\n\\fBisamap\\fR \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR\n"
    << ".SH DESCRIPTION\n"
       "isamap reads kernels written in tensor notation and hardware described in the same "
       "language (.isam files), finds every way each computation runs on the described "
       "instructions, schedules it, and generates native code or accelerator instruction "
       "streams. Each command below is one stage of that pipeline or a tool around it.\n"
    << ".SH COMMANDS\n";
  for (const auto &c : commands) {
    s << ".SS " << synopsis(c) << "\n" << roff(c.description) << ".\n";
    for (const auto &o : c.options) {
      if (o.positional)
        continue;
      s << ".TP\n";
      for (size_t i = 0; i < o.names.size(); ++i)
        s << (i ? ", " : "") << "\\fB" << roff(o.names[i]) << "\\fR";
      if (o.takesValue())
        s << " \\fI" << roff(o.valueName) << "\\fR";
      s << (o.repeated ? " ..." : "") << "\n" << roff(o.description) << "\n";
    }
  }
  s << ".SH ENVIRONMENT\n"
       ".TP\n\\fBISAMAP_NUM_THREADS\\fR\nThreads of native code when \\-\\-threads is not "
       "given.\n"
       ".TP\n\\fBISAMAP_TUNING_DB\\fR\nThe tuning database when \\-\\-db is not given.\n"
       ".TP\n\\fBISAMAP_PROGRESS\\fR\nauto (the default: progress of long reference runs on "
       "stderr), always, or never.\n"
    << ".SH EXIT STATUS\n"
       "0 on success; 1 on errors in the input (diagnostics), a failed \\-\\-check or a file "
       "that cannot be read or written; 2 on usage errors.\n"
    << ".SH SEE ALSO\n"
       "The README of the source distribution (the language, the commands in depth, the "
       "editor integration); \\fBisamap completion\\fR for bash and zsh completion.\n";
  return s.str();
}

} // namespace

Action registerMan(CLI::App &app, const std::string &version) {
  auto output = std::make_shared<std::string>("-");
  auto *cmd = app.add_subcommand("man", "Print the isamap(1) manual page (troff; man -l)");
  cmd->add_option("-o,--output", *output, "Write it to FILE (default: stdout, `-`)")
      ->type_name("FILE");
  return [output, &app, version]() {
    std::string text = page(describeCommands(app), version);
    return writeTextOutput(*output, text);
  };
}

} // namespace isam::cli
