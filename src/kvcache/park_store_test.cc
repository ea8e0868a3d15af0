#include "kvcache/park_store.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "kvcache/park_file.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr int kParkTokens = 4;
constexpr size_t kBlockBytes = 256;

ParkIdentity identity(uint64_t model_id = 99) {
  ParkIdentity id;
  id.model_id = model_id;
  id.kv_type = 1;
  id.n_layer = 2;
  id.n_head_kv = 1;
  id.head_dim = 8;
  id.block_tokens = kParkTokens;
  id.block_bytes = kBlockBytes;
  return id;
}

std::vector<int32_t> park_tokens(int base) { return {base, base + 1, base + 2, base + 3}; }
BlockHash park_key(int base) { return chain_hash(root_hash(0), park_tokens(base)); }
std::vector<std::byte> payload(int seed) {
  std::vector<std::byte> p(kBlockBytes);
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::byte>((i * 13 + seed) & 0xFF);
  return p;
}

class ParkStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("park_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::unique_ptr<ParkStore> open(uint64_t capacity = 1 << 20, ParkIdentity id = identity()) {
    auto store = ParkStore::Open(dir_.string(), capacity, id);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  fs::path file_of(const BlockHash& k) { return dir_ / (k.hex() + ".kvb"); }
  fs::path dir_;
};

TEST_F(ParkStoreTest, RoundTripsBytesExactly) {
  auto store = open();
  auto data = payload(1);
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), data.data()).value());
  std::vector<std::byte> back(kBlockBytes);
  ASSERT_TRUE(store->get(park_key(1), park_tokens(1), back.data()).ok());
  EXPECT_EQ(std::memcmp(back.data(), data.data(), kBlockBytes), 0);
  EXPECT_EQ(store->stats().parks, 1u);
  EXPECT_EQ(store->stats().restores, 1u);
  EXPECT_EQ(store->stats().bytes, park_file_bytes(identity()));
}

TEST_F(ParkStoreTest, SecondPutOfSameKeyWritesNothing) {
  auto store = open();
  auto data = payload(1);
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), data.data()).value());
  EXPECT_FALSE(store->put(park_key(1), park_tokens(1), data.data()).value());
  EXPECT_EQ(store->stats().parks, 1u);
  EXPECT_EQ(store->stats().bytes_written, park_file_bytes(identity()));
}

TEST_F(ParkStoreTest, IndexSurvivesReopen) {
  {
    auto store = open();
    ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
    ASSERT_TRUE(store->put(park_key(2), park_tokens(2), payload(2).data()).ok());
  }
  auto store = open();
  EXPECT_EQ(store->stats().blocks, 2u);
  std::vector<std::byte> back(kBlockBytes);
  ASSERT_TRUE(store->get(park_key(2), park_tokens(2), back.data()).ok());
  EXPECT_EQ(std::memcmp(back.data(), payload(2).data(), kBlockBytes), 0);
}

TEST_F(ParkStoreTest, MissingKeyIsNotFound) {
  auto store = open();
  std::vector<std::byte> back(kBlockBytes);
  EXPECT_EQ(store->get(park_key(5), park_tokens(5), back.data()).code(), Code::kNotFound);
}

TEST_F(ParkStoreTest, FlippedPayloadByteIsCorruptAndFileIsRemoved) {
  auto store = open();
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
  {
    std::fstream f(file_of(park_key(1)), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(park_prefix_bytes(identity()) + 17));
    f.put('\x7f');
  }
  std::vector<std::byte> back(kBlockBytes);
  Status st = store->get(park_key(1), park_tokens(1), back.data());
  EXPECT_EQ(st.code(), Code::kCorrupt);
  EXPECT_NE(st.message().find("checksum"), std::string::npos) << st.message();
  EXPECT_FALSE(store->contains(park_key(1)));
  EXPECT_FALSE(fs::exists(file_of(park_key(1))));
  EXPECT_EQ(store->stats().corrupt, 1u);
}

TEST_F(ParkStoreTest, FlippedHeaderByteIsCorrupt) {
  auto store = open();
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
  {
    std::fstream f(file_of(park_key(1)), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(kParkHeaderBytes + 2);  // inside the token ids
    f.put('\x55');
  }
  std::vector<std::byte> back(kBlockBytes);
  EXPECT_EQ(store->get(park_key(1), park_tokens(1), back.data()).code(), Code::kCorrupt);
}

TEST_F(ParkStoreTest, TruncatedOrDeletedFileIsCorrupt) {
  auto store = open();
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
  ASSERT_TRUE(store->put(park_key(2), park_tokens(2), payload(2).data()).ok());
  fs::resize_file(file_of(park_key(1)), 100);
  fs::remove(file_of(park_key(2)));
  std::vector<std::byte> back(kBlockBytes);
  EXPECT_EQ(store->get(park_key(1), park_tokens(1), back.data()).code(), Code::kCorrupt);
  EXPECT_EQ(store->get(park_key(2), park_tokens(2), back.data()).code(), Code::kCorrupt);
  EXPECT_EQ(store->stats().blocks, 0u);
}

TEST_F(ParkStoreTest, WrongTokensAreRejected) {
  auto store = open();
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
  std::vector<std::byte> back(kBlockBytes);
  EXPECT_EQ(store->get(park_key(1), park_tokens(2), back.data()).code(), Code::kCorrupt);
}

TEST_F(ParkStoreTest, BlocksOfAnotherModelAreNeitherServedNorDeleted) {
  {
    auto store = open(1 << 20, identity(1));
    ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
  }
  auto other = open(1 << 20, identity(2));
  EXPECT_FALSE(other->contains(park_key(1)));
  EXPECT_EQ(other->stats().blocks, 0u);
  EXPECT_TRUE(fs::exists(file_of(park_key(1))));
}

TEST_F(ParkStoreTest, StaysWithinCapacityByDroppingLeastRecentlyUsed) {
  uint64_t file = park_file_bytes(identity());
  auto store = open(2 * file);
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
  ASSERT_TRUE(store->put(park_key(2), park_tokens(2), payload(2).data()).ok());
  std::vector<std::byte> back(kBlockBytes);
  ASSERT_TRUE(store->get(park_key(1), park_tokens(1), back.data()).ok());  // 1 is now the most recent
  ASSERT_TRUE(store->put(park_key(3), park_tokens(3), payload(3).data()).ok());
  EXPECT_TRUE(store->contains(park_key(1)));
  EXPECT_FALSE(store->contains(park_key(2)));
  EXPECT_TRUE(store->contains(park_key(3)));
  EXPECT_FALSE(fs::exists(file_of(park_key(2))));
  EXPECT_EQ(store->stats().bytes, 2 * file);
  EXPECT_EQ(store->stats().deleted, 1u);
}

TEST_F(ParkStoreTest, LeavesNoTemporaryFilesBehind) {
  auto store = open();
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
  int n_files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().extension(), ".kvb");
    ++n_files;
  }
  EXPECT_EQ(n_files, 1);
}

TEST_F(ParkStoreTest, GarbageFileWithBlockNameIsRemovedOnOpen) {
  fs::create_directories(dir_);
  {
    std::ofstream f(file_of(park_key(1)), std::ios::binary);
    std::string junk(park_file_bytes(identity()), 'x');
    f << junk;
  }
  auto store = open();
  EXPECT_FALSE(store->contains(park_key(1)));
  EXPECT_FALSE(fs::exists(file_of(park_key(1))));
}

TEST_F(ParkStoreTest, UnusableDirectoryIsAClearError) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "plain").put('x');
  auto store = ParkStore::Open((dir_ / "plain").string(), 1 << 20, identity());
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("--park-dir"), std::string::npos);
}

TEST_F(ParkStoreTest, FilesCutShortAreLoggedAndRemovedOnOpen) {
  {
    auto store = open();
    for (int b : {1, 2, 3}) ASSERT_TRUE(store->put(park_key(b), park_tokens(b), payload(b).data()).ok());
  }
  fs::resize_file(file_of(park_key(1)), park_file_bytes(identity()) - 1);  // last K/V byte missing
  fs::resize_file(file_of(park_key(2)), 40);                                // inside the header
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
  spdlog::default_logger()->sinks().push_back(sink);
  auto store = open();
  spdlog::default_logger()->sinks().pop_back();
  EXPECT_EQ(store->stats().blocks, 1u);
  EXPECT_TRUE(store->contains(park_key(3)));
  EXPECT_FALSE(fs::exists(file_of(park_key(1))));
  EXPECT_FALSE(fs::exists(file_of(park_key(2))));
  std::string logged;
  for (const std::string& line : sink->last_formatted()) logged += line;
  for (int b : {1, 2}) {
    EXPECT_NE(logged.find("removing " + file_of(park_key(b)).string() + ": cut short"), std::string::npos) << logged;
  }
}

TEST_F(ParkStoreTest, WholeBlocksOfAnotherLayoutAreNotMistakenForCutShort) {
  ParkIdentity other = identity();
  other.block_bytes = kBlockBytes / 2;
  {
    auto store = open(1 << 20, other);
    ASSERT_TRUE(store->put(park_key(1), park_tokens(1), payload(1).data()).ok());
  }
  auto store = open();
  EXPECT_EQ(store->stats().blocks, 0u);
  EXPECT_TRUE(fs::exists(file_of(park_key(1))));
}

// A hybrid model's store: a state file beside the block of the same key, each of its own size
// and magic, sharing the capacity and surviving a reopen.
constexpr size_t kStateBytes = 40;

ParkIdentity hybrid_identity() {
  ParkIdentity id = identity();
  id.state_bytes = kStateBytes;
  return id;
}

std::vector<std::byte> state_payload(int seed) {
  std::vector<std::byte> p(kStateBytes);
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::byte>((i * 7 + seed) & 0xFF);
  return p;
}

TEST_F(ParkStoreTest, StatesAndBlocksOfOneKeyAreSeparateFiles) {
  auto store = open(1 << 20, hybrid_identity());
  auto block = payload(1);
  auto state = state_payload(2);
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), block.data()).value());
  EXPECT_FALSE(store->contains(park_key(1), ParkKind::kState));
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), state.data(), ParkKind::kState).value());
  EXPECT_TRUE(fs::exists(dir_ / (park_key(1).hex() + ".kvs")));
  EXPECT_EQ(store->stats().blocks, 1u);
  EXPECT_EQ(store->stats().states, 1u);
  EXPECT_EQ(store->stats().bytes, park_file_bytes(identity()) + park_prefix_bytes(identity()) + kStateBytes);
  store.reset();
  store = open(1 << 20, hybrid_identity());
  std::vector<std::byte> back(kStateBytes);
  ASSERT_TRUE(store->get(park_key(1), park_tokens(1), back.data(), ParkKind::kState).ok());
  EXPECT_EQ(back, state);
  std::vector<std::byte> block_back(kBlockBytes);
  ASSERT_TRUE(store->get(park_key(1), park_tokens(1), block_back.data()).ok());
  EXPECT_EQ(block_back, block);
  EXPECT_EQ(store->stats().restores, 2u);
}

TEST_F(ParkStoreTest, AStateFileUnderABlocksNameIsNotServed) {
  auto store = open(1 << 20, hybrid_identity());
  auto state = state_payload(3);
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), state.data(), ParkKind::kState).value());
  store.reset();
  fs::rename(dir_ / (park_key(1).hex() + ".kvs"), file_of(park_key(1)));
  store = open(1 << 20, hybrid_identity());
  EXPECT_FALSE(store->contains(park_key(1)));
  EXPECT_FALSE(store->contains(park_key(1), ParkKind::kState));
}

TEST_F(ParkStoreTest, AStoreWithoutStatesWritesNoneAndLeavesOthersAlone) {
  auto hybrid = open(1 << 20, hybrid_identity());
  auto state = state_payload(4);
  ASSERT_TRUE(hybrid->put(park_key(1), park_tokens(1), state.data(), ParkKind::kState).value());
  hybrid.reset();
  auto plain = open();
  EXPECT_FALSE(plain->contains(park_key(1), ParkKind::kState));
  EXPECT_FALSE(plain->put(park_key(2), park_tokens(2), state.data(), ParkKind::kState).value());
  EXPECT_EQ(plain->stats().states, 0u);
  EXPECT_TRUE(fs::exists(dir_ / (park_key(1).hex() + ".kvs")));
}

TEST_F(ParkStoreTest, StatesAndBlocksShareTheCapacityLeastRecentlyUsedFirst) {
  const uint64_t block_file = park_file_bytes(identity());
  const uint64_t state_file = park_prefix_bytes(identity()) + kStateBytes;
  ASSERT_LT(state_file, block_file);
  auto store = open(3 * block_file, hybrid_identity());
  auto block = payload(1);
  auto state = state_payload(1);
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), state.data(), ParkKind::kState).value());
  ASSERT_TRUE(store->put(park_key(1), park_tokens(1), block.data()).value());
  ASSERT_TRUE(store->put(park_key(2), park_tokens(2), block.data()).value());
  EXPECT_EQ(store->stats().deleted, 0u);
  ASSERT_TRUE(store->put(park_key(3), park_tokens(3), block.data()).value());
  EXPECT_FALSE(store->contains(park_key(1), ParkKind::kState));  // the oldest file
  EXPECT_TRUE(store->contains(park_key(1)));
  EXPECT_EQ(store->stats().bytes, 3 * block_file);
}

}  // namespace
}  // namespace strata
