#pragma once
// Quoting what a user gave (a field, a name, a line of a file) in an error message, so that every
// message stays one short, readable line whatever the input holds.
#include <cstddef>
#include <string>
#include <string_view>

namespace variate {

/// About the most characters of an input quote_input shows before cutting it.
inline constexpr std::size_t kQuotedInputLength = 80;

/// `text` between single quotes for an error message: control characters escaped (\r, \n, \t,
/// other bytes below 0x20 and 0x7F as \xHH, so a NUL shows as \x00) and the invisible byte-order
/// mark U+FEFF as \uFEFF; text whose quote would pass kQuotedInputLength characters is cut there
/// (keeping UTF-8 characters whole) and followed by "..." and its whole length in bytes:
///   quote_input("1.5x")          -> '1.5x'
///   quote_input("a\rb")          -> 'a\rb'
///   quote_input(<50 MB of 'a'>)  -> 'aaaa...aaaa'... (50000000 bytes)
std::string quote_input(std::string_view text);

}  // namespace variate
