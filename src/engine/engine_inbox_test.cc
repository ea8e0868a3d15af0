#include "engine/engine_inbox.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace strata {
namespace {

PendingRequest pending(RequestId id) {
  PendingRequest p;
  p.id = id;
  return p;
}

TEST(EngineInbox, BoundsTheWaitingRequestsUntilTheyLeaveTheQueue) {
  EngineInbox inbox(2, 1);
  EXPECT_TRUE(inbox.push_request(pending(1)));
  EXPECT_TRUE(inbox.push_request(pending(2)));
  EXPECT_FALSE(inbox.push_request(pending(3)));
  std::vector<PendingRequest> requests;
  std::vector<RequestId> cancels;
  uint64_t ticket = 0;
  ASSERT_TRUE(inbox.take(&requests, &cancels, &ticket));
  EXPECT_EQ(requests.size(), 2u);
  // Taken by the engine thread but not admitted: still waiting.
  EXPECT_FALSE(inbox.push_request(pending(3)));
  inbox.note_left_queue();
  EXPECT_TRUE(inbox.push_request(pending(3)));
  EXPECT_EQ(inbox.n_waiting(), 2);
}

TEST(EngineInbox, WindowsComeBackInOrder) {
  EngineInbox inbox(1, 3);
  Window a(0, 0, 1, 2, 1, 1, 1), b(1, 1, 1, 2, 1, 1, 1);
  inbox.push_window(&a);
  inbox.push_window(&b);
  EXPECT_EQ(inbox.pop_window(), &a);
  EXPECT_EQ(inbox.pop_window(), &b);
  EXPECT_EQ(inbox.pop_window(), nullptr);
}

TEST(EngineInbox, StopRefusesRequestsAndIsSeenOnce) {
  EngineInbox inbox(4, 1);
  inbox.stop();
  EXPECT_FALSE(inbox.push_request(pending(1)));
  std::vector<PendingRequest> requests;
  std::vector<RequestId> cancels;
  uint64_t ticket = 0;
  EXPECT_FALSE(inbox.take(&requests, &cancels, &ticket));
  inbox.wait(0.01);  // returns: the stop was already seen, nothing else is pending
  EXPECT_TRUE(inbox.stopped());
}

// wait_parked() returns only once the engine thread has acknowledged that very ticket: the
// engine thread records what it handled before acknowledging, and the waiter must see it.
TEST(EngineInbox, ParkRequestWaitsForTheEngineThread) {
  EngineInbox inbox(4, 1);
  std::atomic<uint64_t> handled_ticket{0};
  std::atomic<bool> waiter_returned{false};
  std::atomic<bool> returned_before_acknowledged{false};
  std::thread engine([&] {
    std::vector<PendingRequest> requests;
    std::vector<RequestId> cancels;
    uint64_t ticket = 0;
    while (ticket == 0) {
      inbox.wait(-1.0);
      inbox.take(&requests, &cancels, &ticket);
    }
    handled_ticket.store(ticket);
    if (waiter_returned.load()) returned_before_acknowledged.store(true);
    inbox.parked(ticket);
  });
  const uint64_t ticket = inbox.push_park();
  inbox.wait_parked(ticket);
  waiter_returned.store(true);
  EXPECT_EQ(handled_ticket.load(), ticket);
  engine.join();
  EXPECT_FALSE(returned_before_acknowledged.load());
}

TEST(EngineInbox, CancellationsArePassedThrough) {
  EngineInbox inbox(4, 1);
  inbox.push_cancel(7);
  inbox.push_cancel(9);
  std::vector<PendingRequest> requests;
  std::vector<RequestId> cancels;
  uint64_t ticket = 0;
  inbox.wait(-1.0);
  inbox.take(&requests, &cancels, &ticket);
  EXPECT_EQ(cancels, (std::vector<RequestId>{7, 9}));
  EXPECT_EQ(ticket, 0u);
}

}  // namespace
}  // namespace strata
