// The headers nearly every test binary parses (GoogleTest, nlohmann-json, the standard library),
// precompiled once per build tree and reused by every strata_test target (CMakeLists.txt).
// Only headers that no Strata macro changes belong here: a precompiled header is reused across
// targets whose other definitions differ.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>
