#pragma once
// The data of the built-in models (models/builtin.hpp) as their variables: embedded, generated, or
// read from the files and folders their --data names.
#include <string>

#include "variate/data/data_file.hpp"

namespace variate::models {

inline constexpr const char* kMnistFolder = "../shared/data/mnist";
inline constexpr const char* kMovielensFolder = "../shared/data/movielens-100k";

data::DataFile eight_schools_data();
data::DataFile bernoulli_data();
/// The embedded digits: X (pixels scaled to [0, 1]) and y, the digit plus one (1..10).
data::DataFile digits_classes();
/// The embedded digits: X and y, 1 for an odd digit and 0 for an even one.
data::DataFile digits_odd_even();

/// X and y from a CmdStan JSON file, as they are, or from a CSV file of numbers with the label in
/// the last column; the CSV file's labels count from 0, so for softmax regression (whose labels
/// count from 1, as Stan's categorical) they are checked as such and shifted.
data::DataFile read_logistic_file(const std::string& path);
data::DataFile read_softmax_file(const std::string& path);
/// MNIST's own split from a folder of its IDX files: X and y (the digit plus one) for the 60000
/// training images, X_test and y_test for the 10000 test images.
data::DataFile read_mnist(const std::string& folder);
/// MovieLens-100K's folder as `watched`, its columns named by the movies' titles.
data::DataFile read_movielens(const std::string& folder);
/// A synthetic watch matrix of MovieLens-1M's size (data::synthetic_watch_matrix with key 1).
data::DataFile synthetic_watches();

}  // namespace variate::models
