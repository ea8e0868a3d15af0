// GeneratorTest: the fixture of the modelgen tests that write files: a directory of the suite's
// own (removed after each test), GenerateOptions for a preset as an arch, generated files opened
// back, and the quantizer-agreement check (a spec written in F32, then planned by `strata quantize`
// as a mix, must give every tensor the type mkmodel's plan of the spec in that mix gives).
// Not thread-safe (one test at a time, as GoogleTest runs them).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "base/suite_dir_test_fixture.h"
#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_quantizer.h"
#include "modelgen/plan_test_util.h"

namespace strata::testing {

class GeneratorTest : public SuiteDirTest {
 protected:
  GenerateOptions options(const std::string& arch, const std::string& preset, DType type,
                          const std::string& name) const {
    GenerateOptions o;
    o.arch = arch;
    o.preset = preset;
    o.type = type;
    o.seed = seed_;
    o.n_threads = 2;
    o.out_path = (dir_ / (name + ".gguf")).string();
    return o;
  }

  Result<GgufFile> generate(const GenerateOptions& o) {
    auto r = generate_model(o);
    if (!r.ok()) return r.status();
    return GgufFile::Open(o.out_path);
  }

  Result<GgufFile> generate_spec(const ModelSpec& spec, DType type, const std::string& name) {
    GenerateOptions o = options("", "", type, name);
    auto r = generate_model_from_spec(spec, o);
    if (!r.ok()) return r.status();
    return GgufFile::Open(o.out_path);
  }

  // spec written in F32, then planned by strata quantize as mix: the same type for every tensor as
  // mkmodel's plan of spec in type (mix's base type) gives; that plan's tensors by name.
  std::map<std::string, PlannedTensor> quantized_as_planned(const ModelSpec& spec, const std::string& mix, DType type,
                                                            const std::string& name) {
    GenerateOptions f32 = options("", "", DType::kF32, name);
    auto written = generate_model_from_spec(spec, f32);
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    QuantizeOptions q;
    q.in_path = f32.out_path;
    q.file_type = mix;
    auto quantized = plan_quantize(q);
    auto planned = plan_tensors(spec, type);
    EXPECT_TRUE(quantized.ok() && planned.ok()) << quantized.status().ToString() << planned.status().ToString();
    if (!quantized.ok() || !planned.ok()) return {};
    EXPECT_EQ(quantized->tensors.size(), planned->tensors.size());
    for (size_t i = 0; i < std::min(quantized->tensors.size(), planned->tensors.size()); ++i) {
      EXPECT_EQ(quantized->tensors[i].name, planned->tensors[i].name);
      EXPECT_EQ(quantized->tensors[i].to, planned->tensors[i].type) << planned->tensors[i].name;
    }
    return planned_tensors_by_name(*planned);
  }

  uint64_t seed_ = 7;  // the weights' seed; no test here reads a weight's value
};

}  // namespace strata::testing
