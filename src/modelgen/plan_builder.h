// PlanBuilder: appends a model's tensors to a TensorPlan in llama.cpp's names and shapes
// (tensor_plan.h), one per plan_tensors() call. Private to src/modelgen: tensor_plan.cc holds the
// attention, feed-forward and block parts, recurrent_plan.cc the recurrent layers' (gated delta-net,
// Mamba-2, short convolution, Kimi Delta Attention) and the hybrid blocks made of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "modelgen/model_spec.h"
#include "modelgen/tensor_plan.h"
#include "modelgen/type_mix.h"
#include "tensor/dtype.h"

namespace strata {

struct PlanBuilder {
  TensorPlan* plan;
  const ModelSpec& s;
  DType type;
  uint32_t mix;    // the file type whose mix the matrices follow; 0: none, all take `type`
  MixModel model;  // what the mix rules read of s

  // A matrix (dims {n_in, n_out} or, for experts, {n_in, n_out, n_expert}: rows n_in wide either
  // way) in the type the mix gives its name, or F32 where llama.cpp's quantizer keeps it.
  void matrix(const std::string& name, std::vector<uint64_t> dims, WeightKind kind = WeightKind::kMatrix);
  void vector(const std::string& name, uint64_t n, WeightKind kind);
  // F32 rows (dims {width, rows}): biases per expert, {1, heads} rates.
  void vectors(const std::string& name, std::vector<uint64_t> dims, WeightKind kind);

  // tensor_plan.cc
  void split_kv_b(const std::string& p, uint64_t nope, uint64_t kv_lora, uint64_t v, uint64_t n_head);
  void mla_attention(const std::string& p);
  void dsa_indexer(const std::string& p);
  void attention(const std::string& p, int l);
  void altup_layer(const std::string& p);
  void dense_ffn(const std::string& p, int l);
  void moe_ffn(const std::string& p, int l);
  void nextn(const std::string& p);
  void deci_block(const std::string& p, int l);
  void block(int l);

  // recurrent_plan.cc
  void delta_net(const std::string& p);
  void mamba2(const std::string& p, bool own_norm = true);
  void short_conv(const std::string& p);
  void kda(const std::string& p);
  void falcon_h1_block(const std::string& p, int l);
  void nemotron_h_block(const std::string& p, int l);
};

}  // namespace strata
