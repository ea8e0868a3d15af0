#include "server/auth.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

TEST(ConstantTimeEqual, ComparesWholeStrings) {
  EXPECT_TRUE(constant_time_equal("secret", "secret"));
  EXPECT_FALSE(constant_time_equal("secreT", "secret"));
  EXPECT_FALSE(constant_time_equal("secret", "secret2"));
  EXPECT_FALSE(constant_time_equal("secret2", "secret"));
  // A prefix repeated to the key's length must not pass (b is read modulo its size).
  EXPECT_FALSE(constant_time_equal("abab", "ab"));
  EXPECT_FALSE(constant_time_equal("", "key"));
  EXPECT_FALSE(constant_time_equal("key", ""));
}

TEST(ApiKeyAuth, WithoutKeysEverythingIsAllowed) {
  ApiKeyAuth auth({});
  EXPECT_FALSE(auth.enabled());
  EXPECT_TRUE(auth.allows("", ""));
}

TEST(ApiKeyAuth, AcceptsBearerOrXApiKeyWithAnyConfiguredKey) {
  ApiKeyAuth auth({"k1", "second-key"});
  EXPECT_TRUE(auth.allows("Bearer k1", ""));
  EXPECT_TRUE(auth.allows("bearer second-key", ""));
  EXPECT_TRUE(auth.allows("", "second-key"));
  EXPECT_TRUE(auth.allows("Bearer wrong", "k1"));
}

TEST(ApiKeyAuth, RejectsMissingWrongOrMalformedKeys) {
  ApiKeyAuth auth({"k1"});
  EXPECT_FALSE(auth.allows("", ""));
  EXPECT_FALSE(auth.allows("Bearer k2", ""));
  EXPECT_FALSE(auth.allows("k1", ""));          // no scheme
  EXPECT_FALSE(auth.allows("Basic k1", ""));
  EXPECT_FALSE(auth.allows("Bearer ", ""));
  EXPECT_FALSE(auth.allows("", "k1 "));
}

TEST(ApiKeyAuth, EmptyConfiguredKeysAreIgnored) {
  ApiKeyAuth auth({""});
  EXPECT_FALSE(auth.enabled());
}

}  // namespace
}  // namespace strata::server
