#include "server/api_key_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace strata::server {

namespace {

std::string_view trim_key_line(std::string_view line) {
  constexpr std::string_view kSpace = " \t\r";
  const size_t first = line.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return line.substr(first, line.find_last_not_of(kSpace) - first + 1);
}

}  // namespace

Result<std::vector<std::string>> read_api_key_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::InvalidArgument(fmt::format("--api-key-file {} is a directory, not a file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IoError(fmt::format("--api-key-file {}: cannot open ({})", path, std::strerror(errno)));
  }
  std::string text(kMaxApiKeyFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return Status::IoError(fmt::format("--api-key-file {}: read failed", path));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxApiKeyFileBytes) {
    return Status::InvalidArgument(
        fmt::format("--api-key-file {} is larger than {} bytes; is it the right file?", path, kMaxApiKeyFileBytes));
  }
  std::vector<std::string> keys;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (std::string_view key = trim_key_line(line); !key.empty()) keys.emplace_back(key);
  }
  if (keys.empty()) return Status::InvalidArgument(fmt::format("--api-key-file {} holds no key", path));
  return keys;
}

}  // namespace strata::server
