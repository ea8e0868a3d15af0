// Number text for the Prometheus exposition, byte-for-byte as Python's prometheus_client
// (and so vLLM) writes it: shortest round-trip digits in Python repr() layout ("1.0",
// "0.001", "1e-05", "1e+16"), then Go's earlier switch to exponents for values of seven or
// more integer digits ("1e+06", "2.5e+07"), and "+Inf", "-Inf", "NaN".
// Stateless functions; safe from any thread.
#pragma once

#include <string>

namespace strata {

// Python repr(float(value)): e.g. 1 -> "1.0", 0.1 -> "0.1", 1e16 -> "1e+16".
void append_python_float_repr(std::string* out, double value);

// prometheus_client's floatToGoString(value), used for sample values and `le` labels.
void append_prom_float(std::string* out, double value);
std::string prom_float(double value);

}  // namespace strata
