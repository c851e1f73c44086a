// Error lines for command lines CLI11 could not parse (see parse_errors.hpp).
#include "cli/parse_errors.hpp"

#include "platform/suggest.hpp"

namespace allocstress {

namespace {

// The command path as typed ("run", "slurm submit"); "" for the top level.
std::string command_path(const CLI::App& app) {
  std::string out;
  for (const CLI::App* a = &app; a->get_parent() != nullptr; a = a->get_parent())
    out = a->get_name() + (out.empty() ? "" : " " + out);
  return out;
}

// The deepest command the parser entered.
const CLI::App& deepest_parsed(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return s->parsed(); })) return deepest_parsed(*sub);
  return app;
}

// The commands `app` lists in --help, deprecated spellings left out.
std::vector<std::string> listed_commands(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty() && s->get_group() != "Deprecated spellings"; }))
    out.push_back(sub->get_name());
  return out;
}

// The long options `app` lists in --help, deprecated spellings left out: what a suggestion may name.
std::vector<std::string> listed_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options())
    if (!o->get_group().empty() && o->get_group() != "Deprecated spellings")
      for (const std::string& name : o->get_lnames()) out.push_back("--" + name);
  return out;
}

std::string see_help(const std::string& path) { return "see allocstress " + (path.empty() ? "" : path + " ") + "--help"; }

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App& where = deepest_parsed(app);
  const std::string path = command_path(where);
  // Left-over arguments explain an ExtrasError, and a RequiredError raised before CLI11 reports
  // them; any other error (a value that does not convert, ...) names its own problem.
  const bool leftovers_matter = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr ||
                                dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  const std::vector<std::string> left = leftovers_matter ? where.remaining(false) : std::vector<std::string>{};
  std::string option, argument;  // the first unknown option and the first unexpected argument
  for (const std::string& item : left) {
    if (item == "--") continue;
    if (option.empty() && item.size() > 1 && item[0] == '-') option = item.substr(0, item.find('='));
    if (argument.empty() && !(item.size() > 1 && item[0] == '-')) argument = item;
  }
  const std::vector<std::string> commands = listed_commands(where);
  if (!option.empty()) {
    const std::vector<std::string> options = listed_options(where);
    const std::string suggestion = did_you_mean(option, options);
    return "unknown option '" + option + "' of allocstress" + (path.empty() ? "" : " " + path) +
           (suggestion.empty() ? " " : ": " + suggestion) + "(accepted: the options `allocstress" + (path.empty() ? "" : " " + path) + " --help` lists)";
  }
  if (!argument.empty() && !commands.empty()) return unknown_name_message("command", argument, commands, "; " + see_help(path));
  if (!argument.empty()) return "unexpected argument '" + argument + "' of allocstress " + path + " (" + see_help(path) + ")";
  if (leftovers_matter && where.get_subcommands().empty() && !commands.empty()) {  // no command given
    std::string list;
    for (const std::string& c : commands) list += (list.empty() ? "" : ", ") + c;
    return "allocstress " + (path.empty() ? "" : path + " ") + "needs a command (accepted: " + list + "; " + see_help(path) + ")";
  }
  return std::string(error.what()) + " (" + see_help(path) + ")";
}

}  // namespace allocstress
