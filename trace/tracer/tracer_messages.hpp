// The tracer's own messages: one line on stderr, "allocstress-trace: error: ...", written with
// one write() from a stack buffer (no stdio, no allocation: it may run inside malloc or a
// signal handler).  The tracer never stops the traced program for its own trouble: an error
// turns tracing off for the rest of the process and is reported once; fatal() is only for the
// case where the program itself cannot go on (no real malloc to forward to).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace allocstress::tracer {

class MessageLine {
 public:
  MessageLine& operator<<(const char* s) {
    while (*s && n_ < sizeof buf_ - 1) buf_[n_++] = *s++;
    return *this;
  }
  MessageLine& operator<<(std::uint64_t v) {
    char digits[24];
    int k = 0;
    do digits[k++] = char('0' + v % 10); while ((v /= 10) != 0);
    while (k > 0 && n_ < sizeof buf_ - 1) buf_[n_++] = digits[--k];
    return *this;
  }
  MessageLine& operator<<(int v) {
    if (v < 0) *this << "-";
    return *this << std::uint64_t(v < 0 ? -std::int64_t(v) : v);
  }
  void write_line() {
    buf_[n_++] = '\n';
    [[maybe_unused]] const ssize_t w = ::write(2, buf_, n_);
  }

 private:
  char buf_[1024];
  std::size_t n_ = 0;
};

template <class... Parts>
void report_error(const Parts&... parts) {
  MessageLine line;
  line << "allocstress-trace: error: ";
  (line << ... << parts);
  line.write_line();
}

template <class... Parts>
[[noreturn]] void fatal(const Parts&... parts) {
  report_error(parts...);
  std::abort();
}

}  // namespace allocstress::tracer
