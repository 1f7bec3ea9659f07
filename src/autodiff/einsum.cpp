// Einstein summation, lowered to differentiable permute / reshape / sum / matmul, so it needs no
// backward rule of its own.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "variate/autodiff/ops.hpp"

namespace variate {
namespace {

constexpr char kEllipsisBase = '0';

// Expands "...ij" for a tensor of `rank` into per-axis labels; ellipsis axes get digit labels
// counted from the right so that they broadcast like NumPy's.
std::string expand_labels(std::string_view spec, std::string_view term, int rank, int& ellipsis_rank) {
  const auto dots = term.find("...");
  std::string letters(term);
  if (dots == std::string_view::npos) {
    VARIATE_CHECK(int(letters.size()) == rank, "einsum", "'", spec, "': term '", term, "' has ", letters.size(),
                  " letters for an operand of rank ", rank);
    return letters;
  }
  const std::string before(term.substr(0, dots)), after(term.substr(dots + 3));
  const int n = rank - int(before.size() + after.size());
  VARIATE_CHECK(n >= 0, "einsum", "'", spec, "': term '", term, "' has more letters than the operand's rank ", rank);
  ellipsis_rank = std::max(ellipsis_rank, n);
  std::string middle;
  for (int i = 0; i < n; ++i) middle.push_back(char(kEllipsisBase + (n - 1 - i)));  // right-aligned ids
  return before + middle + after;
}

void check_letters(std::string_view spec, const std::string& labels) {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const char c = labels[i];
    VARIATE_CHECK(std::isalpha(static_cast<unsigned char>(c)) || (c >= kEllipsisBase && c < kEllipsisBase + kMaxRank),
                  "einsum", "'", spec, "': invalid character '", c, "'");
    VARIATE_CHECK(labels.find(c, i + 1) == std::string::npos, "einsum", "'", spec, "': label '", c,
                  "' repeats within one operand (diagonals are not supported)");
  }
}

// Sums away the labels of `x` not in `keep`, and returns the remaining labels.
Tensor sum_unused(const Tensor& x, std::string& labels, const std::string& keep) {
  std::vector<int> axes;
  std::string rest;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (keep.find(labels[i]) == std::string::npos)
      axes.push_back(int(i));
    else
      rest.push_back(labels[i]);
  }
  labels = rest;
  return axes.empty() ? x : sum(x, axes);
}

// Permutes x (labelled `from`) so its axes follow `to` (same label set).
Tensor arrange(const Tensor& x, const std::string& from, const std::string& to) {
  std::vector<int> perm;
  for (char c : to) perm.push_back(int(from.find(c)));
  return permute(x, perm);
}

std::int64_t size_of(const Tensor& x, const std::string& labels, char c) { return x.dim(int(labels.find(c))); }

struct ParsedSpec {
  std::vector<std::string> inputs;
  std::string output;
};

ParsedSpec parse(std::string_view spec, std::span<const Tensor> xs) {
  std::string compact;
  for (char c : spec)
    if (c != ' ') compact.push_back(c);
  const auto arrow = compact.find("->");
  const std::string lhs = compact.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t start = 0;;) {
    const auto comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  VARIATE_CHECK(terms.size() == xs.size(), "einsum", "'", spec, "' names ", terms.size(), " operands but ", xs.size(),
                " were given");
  ParsedSpec p;
  int ellipsis_rank = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    p.inputs.push_back(expand_labels(spec, terms[i], xs[i].rank(), ellipsis_rank));
    check_letters(spec, p.inputs.back());
  }
  std::string ellipsis;
  for (int i = ellipsis_rank - 1; i >= 0; --i) ellipsis.push_back(char(kEllipsisBase + i));
  if (arrow != std::string::npos) {
    std::string out = compact.substr(arrow + 2);
    const auto dots = out.find("...");
    if (dots != std::string::npos) out = out.substr(0, dots) + ellipsis + out.substr(dots + 3);
    p.output = out;
  } else {  // implicit output: the ellipsis, then letters used once, alphabetically
    std::string once;
    for (const auto& t : p.inputs)
      for (char c : t) {
        if (!std::isalpha(static_cast<unsigned char>(c))) continue;
        int count = 0;
        for (const auto& u : p.inputs) count += int(std::count(u.begin(), u.end(), c));
        if (count == 1) once.push_back(c);
      }
    std::sort(once.begin(), once.end());
    p.output = ellipsis + once;
  }
  check_letters(spec, p.output);
  for (char c : p.output) {
    bool found = false;
    for (const auto& t : p.inputs) found = found || t.find(c) != std::string::npos;
    VARIATE_CHECK(found, "einsum", "'", spec, "': output label '", c, "' does not appear in any operand");
  }
  return p;
}

}  // namespace

Tensor einsum(std::string_view spec, const Tensor& a) {
  const Tensor xs[] = {a};
  ParsedSpec p = parse(spec, xs);
  std::string labels = p.inputs[0];
  const Tensor reduced = sum_unused(a, labels, p.output);
  return arrange(reduced, labels, p.output);
}

Tensor einsum(std::string_view spec, const Tensor& a, const Tensor& b) {
  const Tensor xs[] = {a, b};
  ParsedSpec p = parse(spec, xs);
  std::string la = p.inputs[0], lb = p.inputs[1];
  const std::string& out = p.output;
  // Labels only one operand has and the output lacks are summed first.
  const Tensor a1 = sum_unused(a, la, out + lb);
  const Tensor b1 = sum_unused(b, lb, out + la);
  // Classify: batch (both, in output), contracted (both, not in output), free in a or b.
  std::string batch, contracted, free_a, free_b;
  for (char c : la) {
    const bool in_b = lb.find(c) != std::string::npos, in_out = out.find(c) != std::string::npos;
    if (in_b && in_out)
      batch.push_back(c);
    else if (in_b)
      contracted.push_back(c);
    else
      free_a.push_back(c);
  }
  for (char c : lb)
    if (la.find(c) == std::string::npos) free_b.push_back(c);
  // a -> [batch..., free_a, contracted], b -> [batch..., contracted, free_b]; batch dims broadcast.
  const Tensor pa = arrange(a1, la, batch + free_a + contracted);
  const Tensor pb = arrange(b1, lb, batch + contracted + free_b);
  std::int64_t m = 1, n = 1, k = 1;
  for (char c : free_a) m *= size_of(a1, la, c);
  for (char c : free_b) n *= size_of(b1, lb, c);
  for (char c : contracted) {
    const std::int64_t ka = size_of(a1, la, c), kb = size_of(b1, lb, c);
    VARIATE_CHECK(ka == kb, "einsum", "'", spec, "': label '", c, "' has size ", ka, " in the first operand and ", kb,
                  " in the second");
    k *= ka;
  }
  std::vector<std::int64_t> da, db;
  for (char c : batch) da.push_back(size_of(a1, la, c)), db.push_back(size_of(b1, lb, c));
  da.push_back(m), da.push_back(k), db.push_back(k), db.push_back(n);
  const Tensor product = matmul(reshape(pa, da), reshape(pb, db));
  // Unflatten [batch..., m, n] into [batch..., free_a..., free_b...] and order as the output.
  std::vector<std::int64_t> dims;
  for (int i = 0; i < int(batch.size()); ++i) dims.push_back(product.dim(i));
  for (char c : free_a) dims.push_back(size_of(a1, la, c));
  for (char c : free_b) dims.push_back(size_of(b1, lb, c));
  return arrange(reshape(product, dims), batch + free_a + free_b, out);
}

}  // namespace variate
