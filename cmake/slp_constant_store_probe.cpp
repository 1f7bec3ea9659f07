// Exits 0 when the compiler stores a vector literal correctly, 1 when it does not. GCC 12.2 (Debian
// 12) with -O2 -march=native on AVX-512 machines turns {1, 1, 1, 0} into four ones when another
// initializer list precedes it in the function: its basic-block (SLP) vectorizer stores the
// constant as a broadcast of its first element. CMakeLists.txt runs this with the project's flags.
#include <initializer_list>
#include <vector>

__attribute__((noinline)) double sum(std::initializer_list<double> values) {
  double s = 0;
  for (double v : values) s += v;
  return s;
}

__attribute__((noinline)) bool is_1110(const std::vector<double>& v) {
  return v.size() == 4 && v[0] == 1 && v[1] == 1 && v[2] == 1 && v[3] == 0;
}

int main() {
  if (sum({7, 1, 3, 2, 5}) != 18) return 1;
  const std::vector<double> literal{1, 1, 1, 0};
  return is_1110(literal) ? 0 : 1;
}
