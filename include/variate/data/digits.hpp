#pragma once
// Data sets for examples, tests and benchmarks: the embedded scikit-learn digits and CSV files.
#include <string>

#include "variate/tensor/tensor.hpp"

namespace variate::data {

/// A supervised data set: one row of features per example and its integer class label.
struct Dataset {
  Tensor features;  // f64 [n, d]
  Tensor labels;    // i64 [n]
};

/// scikit-learn's digits (UCI optical recognition of handwritten digits), compiled into the library
/// so examples and benchmarks run without files: 1797 8x8 images as features f64 [1797, 64] with
/// pixel values 0..16, and labels 0..9. See data/README.md for provenance and licence.
Dataset digits();

/// Reads a CSV file of numbers, plain or gzip-compressed (detected from the content), without a
/// header row. Column `label_column` (negative counts from the end, so -1 is the last) holds
/// integer labels; the others are features. Blank lines are skipped. Throws variate::Error naming
/// the file and line for a missing or unreadable file, rows with a different number of columns
/// than the first, fields that are not numbers, NaN or infinite values, and non-integer labels.
Dataset load_csv_dataset(const std::string& path, int label_column = -1);

}  // namespace variate::data
