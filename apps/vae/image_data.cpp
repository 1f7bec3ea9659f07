#include "image_data.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "image_batches.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/data/digits.hpp"
#include "variate/data/idx.hpp"

namespace variate::cli::vae {

namespace {

constexpr const char* kJob = "variate train";
constexpr std::int64_t kDigitsTrain = 1500;

// Fixed whatever --seed is, so that runs with different seeds are scored on the same images.
const random::Key kTestBinarization = random::fold_in(random::Key(1), "test binarization");

ImageData mnist(const std::string& data_dir, DType dtype, std::int64_t train_images) {
  const std::string dir = data_dir.empty() ? kDefaultMnistDir : data_dir;
  VARIATE_CHECK(std::filesystem::is_directory(dir), kJob, "the MNIST directory '", dir,
                "' does not exist; pass --data-dir DIR, a directory holding train-images-idx3-ubyte.gz and "
                "t10k-images-idx3-ubyte.gz (and their label files)");
  const data::MnistSplit train = data::load_mnist(dir, "train", dtype, train_images);
  const data::MnistSplit test = data::load_mnist(dir, "t10k", dtype);
  ImageData out;
  out.train = train.images;
  out.test_binary = binarize(test.images, kTestBinarization);
  out.rows = train.rows;
  out.cols = train.cols;
  std::ostringstream text;
  text << "MNIST from " << dir << ": " << out.train.dim(0) << " training and " << out.test_binary.dim(0)
       << " test images of " << out.rows << " x " << out.cols << " pixels";
  out.description = text.str();
  return out;
}

ImageData digits(DType dtype, std::int64_t train_images) {
  const Tensor all = cast(data::digits().features / 16.0, dtype);
  const std::int64_t n = all.dim(0);
  const std::int64_t kept = train_images >= 0 ? std::min(train_images, kDigitsTrain) : kDigitsTrain;
  ImageData out;
  out.train = slice(all, 0, 0, kept);
  out.test_binary = binarize(slice(all, 0, kDigitsTrain, n), kTestBinarization);
  out.rows = out.cols = 8;
  std::ostringstream text;
  text << "the embedded digits: " << out.train.dim(0) << " training and " << out.test_binary.dim(0)
       << " test images of 8 x 8 pixels";
  out.description = text.str();
  return out;
}

}  // namespace

ImageData load_image_data(const std::string& model, const std::string& data_dir, DType dtype,
                          std::int64_t train_images) {
  VARIATE_CHECK(train_images != 0 && train_images >= -1, kJob, "--train-images must be >= 1, got ", train_images);
  if (model == "vae-mnist" || model == "image-transformer") return mnist(data_dir, dtype, train_images);
  VARIATE_CHECK(model == "vae-digits" || model == "image-transformer-digits", kJob, "unknown --model '", model,
                "'; expected vae-mnist, vae-digits, image-transformer or image-transformer-digits");
  return digits(dtype, train_images);
}

}  // namespace variate::cli::vae
