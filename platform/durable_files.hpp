// Writes that survive a crash or power loss: whole files replaced atomically, and the pieces an
// append-only journal needs.  Errors are std::runtime_error naming the path and errno's text.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace allocstress {

// Writes `text` to `path` atomically: a temporary file in the same folder, fsync, rename.
// Throws std::runtime_error naming the path on failure; never leaves a half-written `path`.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// Writes a binary file through PATH.partial: write(out) fills it, then it is renamed to `path`
// (no fsync: inputs a run rebuilds, not results).  A failed write removes PATH.partial and throws
// std::runtime_error "PATH.partial: cannot write WHAT".
void write_through_partial(const std::filesystem::path& path, const std::string& what, const std::function<void(std::ostream&)>& write);

// Writes all of `text` to `fd` (retrying short writes); throws naming `path`.
void write_all(int fd, const std::string& text, const std::filesystem::path& path);

// Makes a directory entry (a created or renamed file) durable, not only the file's contents.
// Best effort: some file systems do not allow opening directories.
void fsync_parent_directory(const std::filesystem::path& path);

// Throws std::runtime_error "<what> <path>: <strerror(errno)>".
[[noreturn]] void throw_file_error(const std::filesystem::path& path, const std::string& what);

}  // namespace allocstress
