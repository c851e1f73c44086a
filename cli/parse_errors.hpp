// One error line for a command line CLI11 could not parse, naming what was wrong: an unknown
// command, an unknown option or an unexpected argument of the command given, with the closest
// valid spelling (platform/suggest.hpp) and what is accepted.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace allocstress {

// The text after "allocstress: error: " for `error`, thrown while `app` parsed the command line.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error);

}  // namespace allocstress
