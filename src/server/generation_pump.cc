#include "server/generation_pump.h"

#include "base/clock.h"
#include "server/json_body_renderer.h"

namespace strata::server {

bool pump_generation(GenerationSession& session, ResponseRenderer& renderer,
                     const std::function<bool()>& client_alive, const PumpTiming& timing) {
  auto give_up = [&] {
    session.cancel();
    return false;
  };
  if (!client_alive() || !renderer.start()) return give_up();
  double last_write_s = monotonic_s();
  while (true) {
    std::optional<ChoiceEvent> event = session.next(timing.poll_s);
    if (!client_alive()) return give_up();
    const double now_s = monotonic_s();
    if (!event) {
      if (now_s - last_write_s >= timing.keep_alive_s) {
        if (!renderer.keep_alive()) return give_up();
        last_write_s = now_s;
      }
      continue;
    }
    last_write_s = now_s;
    if (event->event.kind == RequestEvent::Kind::kToken) {
      if (!renderer.token(event->choice, event->event)) return give_up();
      continue;
    }
    if (!finished_normally(event->event)) session.cancel();
    if (!renderer.finish(event->choice, event->event)) return give_up();
    if (session.finished()) return true;
  }
}

}  // namespace strata::server
