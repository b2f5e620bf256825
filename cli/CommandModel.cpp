#include "CommandModel.h"

#include <regex>

namespace isam::cli {

bool OptionModel::takesPath() const {
  if (positional)
    return true;
  static const std::regex path("FILE|DIR|PATH");
  return takesValue() && choices.empty() && std::regex_search(valueName, path);
}

namespace {

std::vector<std::string> split(const std::string &s, char by) {
  std::vector<std::string> out;
  std::string part;
  for (char c : s)
    if (c == by)
      out.push_back(part), part.clear();
    else
      part += c;
  out.push_back(part);
  return out;
}

// A value's fixed choices: from a type name written as `a|b|c` (lower case words), or from a
// CLI::IsMember validator's `{a,b,c}`.
std::vector<std::string> choicesOf(const std::string &typeName) {
  static const std::regex words("[a-z0-9-]+(\\|[a-z0-9-]+)+");
  static const std::regex member(".*:\\{([a-z0-9-]+(,[a-z0-9-]+)*)\\}.*");
  std::smatch m;
  std::string first = typeName.substr(0, typeName.find(':'));
  if (std::regex_match(first, words))
    return split(first, '|');
  if (std::regex_match(typeName, m, member))
    return split(m[1], ',');
  return {};
}

OptionModel describe(const CLI::Option &o) {
  OptionModel m;
  m.description = o.get_description();
  m.positional = !o.nonpositional();
  if (m.positional) {
    m.names.push_back(o.get_name());
  } else {
    for (const auto &s : o.get_snames())
      m.names.push_back("-" + s);
    for (const auto &l : o.get_lnames())
      m.names.push_back("--" + l);
  }
  if (o.get_items_expected_max() > 0 || m.positional) {
    std::string type = o.get_type_name();
    m.choices = choicesOf(type);
    std::string first = type.substr(0, type.find(':'));
    m.valueName = m.choices.empty() && (first == "TEXT" || first.empty()) &&
                          type.find(":DIR") != std::string::npos
                      ? "DIR"
                  : first.empty() ? "VALUE"
                                  : first;
  }
  m.repeated = o.get_expected_max() > 1 || o.get_items_expected_max() > 1;
  return m;
}

} // namespace

std::vector<CommandModel> describeCommands(const CLI::App &root) {
  std::vector<CommandModel> out;
  for (const CLI::App *sub : root.get_subcommands([](const CLI::App *) { return true; })) {
    if (sub->get_name() == "render-worker")
      continue;
    CommandModel c{sub->get_name(), sub->get_description(), {}};
    for (const CLI::Option *o : sub->get_options())
      if (!o->nonpositional())
        c.options.push_back(describe(*o));
    for (const CLI::Option *o : sub->get_options())
      if (o->nonpositional())
        c.options.push_back(describe(*o));
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace isam::cli
