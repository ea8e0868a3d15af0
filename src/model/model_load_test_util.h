// Test support for the model-loading tests: a fixture that writes a test model (test_model.h)
// into a temporary directory of its own and loads it, and checks that a load fails with a given
// code and message. Used by model_load_test.cc and arch_hparams_test.cc.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "model/model.h"
#include "model/test_model.h"

namespace strata::testing {

class ModelLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("strata-model-load-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Result<std::unique_ptr<Model>> load(const TestModelSpec& spec) {
    const std::string path = (dir_ / "m.gguf").string();
    Status st = write_test_model(spec, path);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return Model::Load(path);
  }

  // Loading must fail with `code` and a message containing `needle`.
  void expect_error(const TestModelSpec& spec, Code code, const std::string& needle) {
    auto m = load(spec);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), code) << m.status().ToString();
    EXPECT_NE(m.status().message().find(needle), std::string::npos) << m.status().ToString();
  }

  std::filesystem::path dir_;
};

}  // namespace strata::testing
