#include "grammar/number_range.h"

#include <cmath>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "grammar/json_schema.h"
#include "grammar/schema_pieces.h"

namespace strata::grammar {

namespace {


// A magnitude: the digits of a non-negative Decimal.
struct Mag {
  std::string i = "0";
  std::string f;
};

Mag magnitude(const Decimal& d) { return Mag{d.int_digits, d.frac_digits}; }

int compare_mags(const Mag& a, const Mag& b) {
  if (a.i.size() != b.i.size()) return a.i.size() < b.i.size() ? -1 : 1;
  if (int c = a.i.compare(b.i); c != 0) return c < 0 ? -1 : 1;
  const size_t n = std::max(a.f.size(), b.f.size());
  for (size_t k = 0; k < n; ++k) {
    const char x = k < a.f.size() ? a.f[k] : '0', y = k < b.f.size() ? b.f[k] : '0';
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// Up to n more digits ("" when n is 0).
std::string any_digits(int n) { return n > 0 ? fmt::format(" [0-9]{{0,{}}}", n) : ""; }

std::string digit(char d) { return fmt::format("\"{}\"", d); }

// The digit strings below are fractions' digits, compared as decimal fractions (a missing digit
// is a 0); each language holds non-empty strings of at most rem digits, nullopt when none.

// Strings >= s (s non-empty).
std::optional<std::string> at_least(const std::string& s, int rem) {
  if (rem <= 0) return std::nullopt;
  std::vector<std::string> alts;
  if (s[0] < '9') alts.push_back(fmt::format("[{}-9]{}", static_cast<char>(s[0] + 1), any_digits(rem - 1)));
  const std::string rest = s.substr(1);
  if (rest.empty()) {
    alts.push_back(digit(s[0]) + any_digits(rem - 1));
  } else if (auto r = at_least(rest, rem - 1)) {
    alts.push_back(digit(s[0]) + " " + *r);
  }
  if (alts.empty()) return std::nullopt;
  return gbnf_alternatives(alts);
}

// Strings <= s (s may be empty: then only zeros).
std::string at_most(const std::string& s, int rem) {
  if (s.empty()) return fmt::format("\"0\"{{1,{}}}", rem);
  std::vector<std::string> alts;
  if (s[0] > '0') alts.push_back(fmt::format("[0-{}]{}", static_cast<char>(s[0] - 1), any_digits(rem - 1)));
  alts.push_back(rem > 1 ? digit(s[0]) + " (\"\" | " + at_most(s.substr(1), rem - 1) + ")" : digit(s[0]));
  return gbnf_alternatives(alts);
}

// Strings in [a, b] (a non-empty, a <= b).
std::optional<std::string> between(const std::string& a, const std::string& b, int rem) {
  if (rem <= 0) return std::nullopt;
  const char a0 = a[0], b0 = b.empty() ? '0' : b[0];
  const std::string a_rest = a.substr(1), b_rest = b.empty() ? "" : b.substr(1);
  auto tail_at_most = [&](char d) {
    return rem > 1 ? digit(d) + " (\"\" | " + at_most(b_rest, rem - 1) + ")" : digit(d);
  };
  if (a0 == b0) {
    if (a_rest.empty()) return tail_at_most(a0);
    auto r = between(a_rest, b_rest, rem - 1);
    if (!r) return std::nullopt;
    return digit(a0) + " " + *r;
  }
  std::vector<std::string> alts;
  if (a_rest.empty()) {
    alts.push_back(digit(a0) + any_digits(rem - 1));
  } else if (auto r = at_least(a_rest, rem - 1)) {
    alts.push_back(digit(a0) + " " + *r);
  }
  if (a0 + 1 <= b0 - 1) {
    alts.push_back(fmt::format("[{}-{}]{}", static_cast<char>(a0 + 1), static_cast<char>(b0 - 1), any_digits(rem - 1)));
  }
  alts.push_back(tail_at_most(b0));
  return gbnf_alternatives(alts);
}

// The optional fraction part ("" or "." digits) of a number whose integer part is fixed:
// its value within [lo, hi] (each nullptr: that side open).
std::optional<std::string> fraction(const std::string* lo, const std::string* hi) {
  if (lo && !lo->empty()) {
    auto digits = hi ? between(*lo, *hi, kMaxNumberDigits) : at_least(*lo, kMaxNumberDigits);
    if (!digits) return std::nullopt;
    return "\".\" " + *digits;
  }
  if (hi) return "(\".\" " + at_most(*hi, kMaxNumberDigits) + ")?";
  return fmt::format("(\".\" [0-9]{{1,{}}})?", kMaxNumberDigits);
}

long long integer_of(const std::string& digits) { return std::strtoll(digits.c_str(), nullptr, 10); }

// Unsigned numbers "int(.frac)?" whose value lies in [a, b] (b nullptr: unbounded).
std::optional<std::string> unsigned_range(const Mag& a, const Mag* b) {
  if (b && compare_mags(a, *b) > 0) return std::nullopt;
  const long long ai = integer_of(a.i);
  std::vector<std::string> alts;
  auto add = [&](const std::string& integer, std::optional<std::string> frac) {
    if (frac) alts.push_back(integer + " " + *frac);
  };
  if (b && a.i == b->i) {
    add(gbnf_literal(a.i), fraction(&a.f, &b->f));
    return gbnf_alternatives(alts);
  }
  add(gbnf_literal(a.i), fraction(&a.f, nullptr));
  const long long next = ai + 1;
  if (!b) {
    if (std::to_string(next).size() <= static_cast<size_t>(kMaxNumberDigits)) {
      add(integer_range_gbnf(&next, nullptr), fraction(nullptr, nullptr));
    }
  } else {
    const long long bi = integer_of(b->i), last = bi - 1;
    if (next <= last) add(integer_range_gbnf(&next, &last), fraction(nullptr, nullptr));
    add(gbnf_literal(b->i), fraction(nullptr, &b->f));
  }
  if (alts.empty()) return std::nullopt;
  return gbnf_alternatives(alts);
}

bool is_negative(const Decimal* d) { return d && d->negative; }

}  // namespace

std::optional<Decimal> decimal_of(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 1e16) return std::nullopt;
  // fmt's shortest round-trip spelling: "0.1", "1e-07", "1.5e+15", "-3".
  const std::string text = fmt::format("{}", v);
  Decimal d;
  size_t at = 0;
  if (text[0] == '-') {
    d.negative = true;
    at = 1;
  }
  std::string digits;
  int point = -1;  // digits before the decimal point
  for (; at < text.size() && text[at] != 'e'; ++at) {
    if (text[at] == '.') {
      point = static_cast<int>(digits.size());
    } else {
      digits += text[at];
    }
  }
  if (point < 0) point = static_cast<int>(digits.size());
  if (at < text.size()) point += std::atoi(text.c_str() + at + 1);
  if (point <= 0) {
    digits.insert(0, static_cast<size_t>(-point) + 1, '0');
    point = 1;
  } else if (point > static_cast<int>(digits.size())) {
    digits.append(static_cast<size_t>(point) - digits.size(), '0');
  }
  d.int_digits = digits.substr(0, static_cast<size_t>(point));
  d.frac_digits = digits.substr(static_cast<size_t>(point));
  d.int_digits.erase(0, std::min(d.int_digits.find_first_not_of('0'), d.int_digits.size() - 1));
  while (!d.frac_digits.empty() && d.frac_digits.back() == '0') d.frac_digits.pop_back();
  if (d.int_digits == "0" && d.frac_digits.empty()) d.negative = false;
  return d;
}

namespace {

// Decimals with at most kScaleDigits fraction digits as integers: value * 10^kScaleDigits.
// |value| < 1e16 fits an __int128 with room to spare.
constexpr int kScaleDigits = 20;

__int128 scaled(const Decimal& d, bool round_up) {
  __int128 v = 0;
  for (char c : d.int_digits) v = v * 10 + (c - '0');
  for (int k = 0; k < kScaleDigits; ++k) v = v * 10 + (k < static_cast<int>(d.frac_digits.size()) ? d.frac_digits[k] - '0' : 0);
  const bool cut = static_cast<int>(d.frac_digits.size()) > kScaleDigits;  // digits below 10^-20 (never 0s)
  if (d.negative) v = -v;
  // A cut-off tail made |v| smaller: moving up past a positive value, or down past a negative one.
  if (cut && round_up && !d.negative) v += 1;
  if (cut && !round_up && d.negative) v -= 1;
  return v;
}

Decimal unscaled(__int128 v) {
  Decimal d;
  d.negative = v < 0;
  if (v < 0) v = -v;
  std::string digits;
  for (; v > 0; v /= 10) digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  if (digits.size() <= static_cast<size_t>(kScaleDigits)) digits.insert(0, kScaleDigits + 1 - digits.size(), '0');
  d.int_digits = digits.substr(0, digits.size() - kScaleDigits);
  d.frac_digits = digits.substr(digits.size() - kScaleDigits);
  while (!d.frac_digits.empty() && d.frac_digits.back() == '0') d.frac_digits.pop_back();
  if (d.int_digits == "0" && d.frac_digits.empty()) d.negative = false;
  return d;
}

}  // namespace

std::optional<Decimal> inclusive_of_exclusive(const Decimal& bound, bool above) {
  const int int_digits = bound.int_digits == "0" ? 0 : static_cast<int>(bound.int_digits.size());
  if (int_digits >= 15) return std::nullopt;
  __int128 step = 1;
  for (int k = 0; k < kScaleDigits - (15 - int_digits); ++k) step *= 10;
  const __int128 v = scaled(bound, above);
  return unscaled(above ? v + step : v - step);
}

int compare_decimals(const Decimal& a, const Decimal& b) {
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  const int c = compare_mags(magnitude(a), magnitude(b));
  return a.negative ? -c : c;
}

std::string number_range_gbnf(const Decimal* lo, const Decimal* hi) {
  std::vector<std::string> alts;
  // Written without "-": values from max(lo, 0) up to hi.
  if (!is_negative(hi)) {
    const Mag from = lo && !lo->negative ? magnitude(*lo) : Mag{};
    const Mag to = hi ? magnitude(*hi) : Mag{};
    if (auto r = unsigned_range(from, hi ? &to : nullptr)) alts.push_back(*r);
  }
  // Written with "-": magnitudes from max(-hi, 0) up to -lo.
  if (!lo || lo->negative) {
    const Mag from = is_negative(hi) ? magnitude(*hi) : Mag{};
    const Mag to = lo ? magnitude(*lo) : Mag{};
    if (auto r = unsigned_range(from, lo ? &to : nullptr)) alts.push_back("\"-\" " + *r);
  }
  return gbnf_alternatives(alts);
}

}  // namespace strata::grammar
