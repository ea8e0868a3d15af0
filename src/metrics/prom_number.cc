#include "metrics/prom_number.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace strata {
namespace {

// Shortest round-trip decimal digits of |value| (> 0, finite) and the decimal exponent of
// the first digit: value = d.ddd x 10^exp10.
struct Digits {
  char digits[32];
  int n_digits = 0;
  int exp10 = 0;
};

Digits shortest_digits(double magnitude) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), magnitude, std::chars_format::scientific);
  std::string_view text(buf, res.ptr - buf);  // "d.ddde+XX" or "de+XX"
  size_t e = text.find('e');
  Digits d;
  for (size_t i = 0; i < e; ++i) {
    if (text[i] != '.') d.digits[d.n_digits++] = text[i];
  }
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(),
                  d.exp10);
  return d;
}

void append_exponent_form(std::string* out, const Digits& d) {
  out->push_back(d.digits[0]);
  if (d.n_digits > 1) {
    out->push_back('.');
    out->append(d.digits + 1, d.n_digits - 1);
  }
  out->push_back('e');
  out->push_back(d.exp10 < 0 ? '-' : '+');
  int e = std::abs(d.exp10);
  if (e < 10) out->push_back('0');
  out->append(std::to_string(e));
}

// Python's repr switches to exponent form when the decimal point would sit more than 16
// digits right of the first digit or 4 or more zeros left of it.
void append_fixed_form(std::string* out, const Digits& d) {
  int decpt = d.exp10 + 1;  // digits before the decimal point
  if (decpt <= 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-decpt), '0');
    out->append(d.digits, d.n_digits);
  } else if (decpt < d.n_digits) {
    out->append(d.digits, decpt);
    out->push_back('.');
    out->append(d.digits + decpt, d.n_digits - decpt);
  } else {
    out->append(d.digits, d.n_digits);
    out->append(static_cast<size_t>(decpt - d.n_digits), '0');
    out->append(".0");
  }
}

}  // namespace

void append_python_float_repr(std::string* out, double value) {
  if (std::isnan(value)) {
    out->append("nan");
    return;
  }
  if (std::isinf(value)) {
    out->append(value > 0 ? "inf" : "-inf");
    return;
  }
  if (std::signbit(value)) out->push_back('-');
  if (value == 0) {
    out->append("0.0");
    return;
  }
  Digits d = shortest_digits(std::fabs(value));
  if (d.exp10 < -4 || d.exp10 >= 16) {
    append_exponent_form(out, d);
  } else {
    append_fixed_form(out, d);
  }
}

void append_prom_float(std::string* out, double value) {
  if (std::isnan(value)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(value)) {
    out->append(value > 0 ? "+Inf" : "-Inf");
    return;
  }
  size_t start = out->size();
  append_python_float_repr(out, value);
  std::string_view repr(out->data() + start, out->size() - start);
  size_t dot = repr.find('.');
  // Go prints exponents from seven integer digits on; prometheus_client mimics that by
  // moving the point behind the first digit and writing the shift as "e+0<shift>".
  if (value > 0 && dot != std::string_view::npos && dot > 6) {
    std::string mantissa;
    mantissa.push_back(repr[0]);
    mantissa.push_back('.');
    mantissa.append(repr.substr(1, dot - 1));
    mantissa.append(repr.substr(dot + 1));
    size_t keep = mantissa.find_last_not_of("0.");
    mantissa.resize(keep + 1);
    out->resize(start);
    out->append(mantissa);
    out->append("e+0");
    out->append(std::to_string(dot - 1));
  }
}

std::string prom_float(double value) {
  std::string s;
  append_prom_float(&s, value);
  return s;
}

}  // namespace strata
