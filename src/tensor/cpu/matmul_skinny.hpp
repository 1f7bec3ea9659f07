#pragma once
// Matrix products where a general GEMM's packing and blocking cost more than they save: few output
// columns (n <= kSkinnyMaxN) over a large operand A, the forward (X W) and backward (X^T G)
// products of regression models; a short contracted dimension (k <= kSmallKMaxK), U V^T in matrix
// factorization; and operands that fit in the caches (kPanelMaxBytes), the layers of small
// networks. See matmul_skinny.cpp.
#include <cstdint>

#include "variate/tensor/tensor.hpp"

namespace variate::cpu {

/// Largest n (columns of the result) that skinny_matmul handles.
inline constexpr std::int64_t kSkinnyMaxN = 32;

/// False when the environment variable VARIATE_MATMUL_SKINNY is "0" (read once): matmul then uses
/// the general Eigen path for every shape, so benchmarks can compare the two in one build.
bool skinny_matmul_enabled();

/// out (m x n, row-major) = op(A) op(B) with op(A) m x k and op(B) k x n, for 1 <= n <= kSkinnyMaxN.
/// A's storage is m x k (k x m when ta), B's k x n (n x k when tb). Each element of the result is
/// accumulated over the contracted index in the same order whatever the number of threads.
template <class T>
void skinny_matmul(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n, bool ta, bool tb);

/// op(B) packed as skinny_matmul's product with A not transposed reads it, for a caller that multiplies
/// many blocks of rows by the same B (skinny_matmul packs B at every call, which cost 10% of the fused
/// softmax GLM's gradient at MNIST's shape).
template <class T>
Tensor skinny_pack_right(const T* b, std::int64_t k, std::int64_t n, bool tb);

/// out (m x n) = a (m x k) op(B), with op(B) packed by skinny_pack_right(b, k, n, tb): the same
/// operations, and so the same result, as skinny_matmul(a, b, out, m, k, n, false, tb).
template <class T>
void skinny_matmul_packed(const T* a, const Tensor& packed_b, T* out, std::int64_t m, std::int64_t k, std::int64_t n);

/// out (n x m, row-major) = (accumulate ? out : 0) + B^T A for A's storage k x m and B's k x n,
/// 1 <= n <= kSkinnyMaxN: skinny_matmul's X^T G with ta, stored transposed, the layout its kernels
/// produce. A caller that sums it over blocks of rows adds each block straight into the sum, and
/// transposes once, at the end.
template <class T>
void skinny_matmul_tn_transposed(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n,
                                 bool accumulate);

/// Largest contracted dimension k for which panel_matmul is used whatever the size of the operands.
inline constexpr std::int64_t kSmallKMaxK = 64;

/// Largest k (m + n) sizeof(T), the bytes of op(A) and op(B), for which panel_matmul is used with a
/// longer contracted dimension: both operands then stay in L2 (1 MiB) and L3 while the panels pass
/// over them. (Measured on one AVX-512 core at the 14 products of a step of the VAE in
/// bench/vae_training_step, 100 x 784 x 200 and smaller: 93 GFLOP/s in f64 against Eigen's 75.)
inline constexpr std::int64_t kPanelMaxBytes = std::int64_t(4) << 20;

/// out (m x n) = op(A) op(B) as in skinny_matmul, for any shape; the kernel behind the small-k and
/// cache-sized products. Each element is one chain of fused multiply-adds over the contracted index
/// in increasing order, whatever the number of threads.
template <class T>
void panel_matmul(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n, bool ta, bool tb);

}  // namespace variate::cpu
