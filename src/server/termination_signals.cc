#include "server/termination_signals.h"

#include <pthread.h>

#include <cerrno>
#include <ctime>

namespace strata::server {

TerminationSignals::TerminationSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set_, &previous_);
}

TerminationSignals::~TerminationSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

bool TerminationSignals::wait(double timeout_s) {
  timespec timeout;
  timeout.tv_sec = static_cast<time_t>(timeout_s);
  timeout.tv_nsec = static_cast<long>((timeout_s - static_cast<double>(timeout.tv_sec)) * 1e9);
  return sigtimedwait(&set_, nullptr, &timeout) > 0;
}

}  // namespace strata::server
