// Compiles cleanly unless the compiler warns, falsely, that its own AVX-512 intrinsics read an
// uninitialized value: GCC 12 does so for _mm512_extractf64x4_pd, which Eigen's AVX-512
// reductions call (GCC bug 105593, fixed in GCC 13). CMakeLists.txt compiles this with -O2
// -march=native -Wall -Werror=maybe-uninitialized.
#include <Eigen/Core>

Eigen::VectorXd transposed_product(const Eigen::MatrixXd& a, const Eigen::VectorXd& x) { return a.transpose() * x; }

int main() { return int(transposed_product(Eigen::MatrixXd::Ones(3, 2), Eigen::VectorXd::Ones(3))(0)) == 3 ? 0 : 1; }
