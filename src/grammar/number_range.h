// GBNF for the JSON numbers whose value lies within inclusive decimal bounds: JSON Schema's
// `minimum` / `maximum` on "number" (Pydantic's ge / le on a float, Zod's min / max), e.g. a
// confidence in [0, 1].
//
// The numbers are written without an exponent, "-"? int ("." frac)?, with at most 16 integer and
// 16 fraction digits, as the schema grammar's other numbers. The language is exact on the
// decimal text: a number is accepted iff its decimal value lies in [lo, hi], except that "-0"
// (and "-0.0"...) is left out when the range starts at 0. Rounding a decimal
// to a double is monotonic, so an accepted number also validates against the bounds as a double.
// Exclusive bounds are not offered: a decimal just above a bound can round to the bound's double.
//
// Stateless; thread-safe.
#pragma once

#include <optional>
#include <string>

namespace strata::grammar {

// A decimal number: int_digits without leading zeros ("0" for a value below 1), frac_digits
// without trailing zeros (empty for an integer). Zero is never negative.
struct Decimal {
  bool negative = false;
  std::string int_digits = "0";
  std::string frac_digits;
};

// The shortest decimal spelling of v (0.1 -> "0.1", 1e-7 -> "0.0000001"); nullopt unless v is
// finite and |v| < 1e16.
std::optional<Decimal> decimal_of(double v);

// -1, 0 or 1 as a < b, a == b, a > b.
int compare_decimals(const Decimal& a, const Decimal& b);

// A GBNF expression for the numbers in [lo, hi] (nullptr: unbounded on that side); the caller
// checks lo <= hi. Needs no rules of its own.
std::string number_range_gbnf(const Decimal* lo, const Decimal* hi);

}  // namespace strata::grammar
