// TerminationSignals: SIGTERM / SIGINT delivered as an event the server can wait for, instead of
// through a signal handler and a process-wide flag.
//
// The constructor blocks both signals in the calling thread; threads started afterwards inherit
// the mask, so the signals stay pending until wait() takes one. Construct it on the main thread
// before any other thread exists; the destructor restores the previous mask. Not copyable; use
// from one thread.
#pragma once

#include <signal.h>

namespace strata::server {

class TerminationSignals {
 public:
  TerminationSignals();
  ~TerminationSignals();

  TerminationSignals(const TerminationSignals&) = delete;
  TerminationSignals& operator=(const TerminationSignals&) = delete;

  // True when SIGTERM or SIGINT arrived within timeout_s.
  bool wait(double timeout_s);

 private:
  sigset_t set_;
  sigset_t previous_;
};

}  // namespace strata::server
