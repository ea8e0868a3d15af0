// Scalar argmax: first index of the largest value; NaNs never win.
#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

int argmax(const float* x, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i) {
    if (x[i] > x[best] || (x[best] != x[best] && x[i] == x[i])) best = i;
  }
  return best;
}

}  // namespace strata::kernels::reference
