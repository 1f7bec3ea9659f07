#include "variate/core/quote_input.hpp"

namespace variate {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Appends the first character of `text` (one byte, a whole UTF-8 character, or the byte-order
// mark), escaped where it would not show; returns how many bytes it took.
std::size_t append_character(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const auto c = static_cast<unsigned char>(text[0]);
  if (text.starts_with(kByteOrderMark)) {
    out += "\\uFEFF";
    return kByteOrderMark.size();
  }
  if (c == '\r' || c == '\n' || c == '\t') {
    out += c == '\r' ? "\\r" : c == '\n' ? "\\n" : "\\t";
  } else if (c < 0x20 || c == 0x7F) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  } else {
    std::size_t n = 1;
    while (n < text.size() && utf8_continuation(text[n])) ++n;  // keep a character whole
    out.append(text.substr(0, n));
    return n;
  }
  return 1;
}

}  // namespace

std::string quote_input(std::string_view text) {
  std::string out = "'";
  std::size_t done = 0;
  while (done < text.size() && out.size() <= kQuotedInputLength) done += append_character(out, text.substr(done));
  out += '\'';
  if (done < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace variate
