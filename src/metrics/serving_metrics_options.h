// What the server tells ServingMetrics at start. Plain value.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace strata {

struct ServingMetricsOptions {
  std::string model_name;          // value of every sample's model_name label (served model id)
  int max_model_len = 2048;        // per-request context; top of the token-count histograms
  std::string version;             // Strata's version, shown as engine.version
  bool enable_prefix_caching = true;
  // `serve --config`: the engine settings file in use (empty: none, the flags alone) and the
  // keys taken from it; the Monitor page shows them as engine.config.
  std::string config_file;
  std::vector<std::string> config_keys;
  // Positions of vllm:spec_decode_num_accepted_tokens_per_pos_total; 0 = no speculative
  // decoding, so that family has no samples (and no header).
  int num_speculative_tokens = 0;
  size_t keep_requests = 500;      // finished requests kept for ?requests=all
  size_t show_requests = 12;       // finished requests in the default JSON
  size_t max_http_label_sets = 256;  // http_requests_total series beyond this go to handler="other"
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
};

}  // namespace strata
