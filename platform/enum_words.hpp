// The words of an enumeration, both ways, from one table.
//
// Model: a constexpr array of {value, word} pairs, in the order a message lists them, serves
// to_string (word_of) and the parser (parse_word), so that the two and the parser's list of
// accepted words cannot drift apart.  Contract: word_of returns `fallback` for a value not in
// the table; parse_word throws std::invalid_argument "unknown WHAT 'TEXT' (accepted: a, b, c)".
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace allocstress {

template <class E>
struct EnumWord {
  E value;
  std::string_view word;
};

template <class E, std::size_t N>
constexpr std::string_view word_of(const EnumWord<E> (&words)[N], E value, std::string_view fallback = "?") {
  for (const EnumWord<E>& w : words)
    if (w.value == value) return w.word;
  return fallback;
}

template <class E, std::size_t N>
E parse_word(const EnumWord<E> (&words)[N], std::string_view text, std::string_view what) {
  std::string accepted;
  for (const EnumWord<E>& w : words) {
    if (w.word == text) return w.value;
    accepted += (accepted.empty() ? "" : ", ") + std::string(w.word);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(text) + "' (accepted: " + accepted + ")");
}

}  // namespace allocstress
