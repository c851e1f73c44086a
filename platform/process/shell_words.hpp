// A command line typed as one string (`--server 'redis-server --port 7000'`, a programs file's
// `command = "jq -c . {input}"`) split into words the way a POSIX shell splits them, without any
// expansion: blanks separate words; 'single quotes' keep everything; "double quotes" keep all but
// \" \\ \$ \` (a backslash before them is dropped); a backslash outside quotes keeps the next
// character.  No globbing, variables, pipes or redirections: a command that needs them is run
// through `sh -c` by whoever asked for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

// Throws std::invalid_argument naming an unclosed quote or a trailing backslash.
std::vector<std::string> split_shell_words(std::string_view text);

}  // namespace allocstress
