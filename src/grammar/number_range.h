// GBNF for the JSON numbers whose value lies within inclusive decimal bounds: JSON Schema's
// `minimum` / `maximum` on "number" (Pydantic's ge / le on a float, Zod's min / max), e.g. a
// confidence in [0, 1].
//
// The numbers are written without an exponent, "-"? int ("." frac)?, with at most 16 integer and
// 16 fraction digits, as the schema grammar's other numbers. The language is exact on the
// decimal text: a number is accepted iff its decimal value lies in [lo, hi], except that "-0"
// (and "-0.0"...) is left out when the range starts at 0. Rounding a decimal to a double is
// monotonic, so an accepted number also validates against the bounds as a double.
//
// An exclusive bound (exclusiveMinimum / exclusiveMaximum: Pydantic's gt / lt, PositiveFloat)
// becomes the inclusive one a step inside it, 10^-(15 - integer digits of the bound): a decimal
// just past the bound itself could round to the bound's double, and the step is more than the
// bound's double spacing, so every number past it validates as a double. The numbers in that
// step are left out (gt=0: those below 1e-15).
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

// The inclusive bound for an exclusive one (above: a lower bound, so the step goes up); nullopt
// when the bound has 15 or more integer digits (no step keeps doubles apart there).
std::optional<Decimal> inclusive_of_exclusive(const Decimal& bound, bool above);

// A GBNF expression for the numbers in [lo, hi] (nullptr: unbounded on that side); the caller
// checks lo <= hi. Needs no rules of its own.
std::string number_range_gbnf(const Decimal* lo, const Decimal* hi);

}  // namespace strata::grammar
