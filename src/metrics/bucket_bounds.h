// The histogram bucket bounds vLLM uses, so dashboards and recording rules written for vLLM
// read Strata's histograms unchanged. Stateless functions.
#pragma once

#include <vector>

namespace strata {

std::vector<double> ttft_buckets_s();             // 0.001 .. 2560 seconds
std::vector<double> inter_token_buckets_s();      // 0.01 .. 80 seconds
std::vector<double> request_latency_buckets_s();  // 0.3 .. 7680 seconds
// 1, 2, 5, 10, 20, 50, ... while <= max_value (vLLM's build_1_2_5_buckets).
std::vector<double> one_two_five_buckets(double max_value);
std::vector<double> request_n_buckets();          // 1 2 5 10 20
std::vector<double> iteration_token_buckets();    // 1 8 16 32 ... 16384
std::vector<double> window_row_buckets();         // 1 2 4 ... 4096 (Strata's own)

}  // namespace strata
