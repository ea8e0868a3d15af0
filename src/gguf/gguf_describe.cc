#include "gguf/gguf_describe.h"

#include <cinttypes>
#include <cstdio>
#include <map>

#include "gguf/file_type.h"
#include "gguf/quant_mix.h"

namespace strata {

namespace {

std::string format_string(const std::string& s, size_t max_bytes) {
  std::string out = "\"";
  size_t n = s.size() < max_bytes ? s.size() : max_bytes;
  for (size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (n < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

std::string format_float(double f) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", f);
  return buf;
}

std::string type_label(const GgufValue& v) {
  if (v.type != GgufType::kArray) return gguf_type_name(v.type);
  return std::string("[") + gguf_type_name(v.elem_type) + "]";
}

std::string format_bytes(uint64_t n) {
  char buf[48];
  if (n >= (uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", static_cast<double>(n) / (1 << 30));
  } else if (n >= (uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2f MiB", static_cast<double>(n) / (1 << 20));
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f KiB", static_cast<double>(n) / 1024);
  }
  return buf;
}

std::string format_dims(const std::vector<uint64_t>& dims) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? " x " : "") + std::to_string(dims[i]);
  return out.empty() ? "scalar" : out;
}

// The reason a matrix is not in the file's main type, when its width cannot hold that type. An F32
// matrix was never quantized (a router, a delta-net's ssm_conv1d): llama.cpp's fallbacks are
// quantized types or F16.
std::string fallback_note(const GgufTensor& t, std::optional<DType> main) {
  if (!main || t.type == *main || t.type == DType::kF32 || t.dims.size() < 2) return "";
  const DTypeInfo& info = dtype_info(*main);
  if (info.block_size == 1 || t.dims[0] % info.block_size == 0) return "";
  return "fallback: width " + std::to_string(t.dims[0]) + " is not whole " + std::string(info.name) +
         " blocks of " + std::to_string(info.block_size);
}

void describe_metadata(const GgufFile& f, const DescribeOptions& options, std::string* out) {
  *out += "metadata (" + std::to_string(f.metadata().size()) + " keys):\n";
  char line[256];
  for (const auto& [key, value] : f.metadata()) {
    std::snprintf(line, sizeof(line), "  %-44s %-9s ", key.c_str(), type_label(value).c_str());
    *out += line + format_gguf_value(value, options) + "\n";
  }
}

void describe_tensors(const GgufFile& f, std::optional<DType> main, std::string* out) {
  char line[512];
  std::snprintf(line, sizeof(line), "tensors (%zu):\n  %-36s %-8s %-22s %12s %12s\n", f.tensors().size(), "name",
                "type", "dims", "bytes", "offset");
  *out += line;
  for (const auto& t : f.tensors()) {
    std::string note = fallback_note(t, main);
    std::snprintf(line, sizeof(line), "  %-36s %-8s %-22s %12zu %12" PRIu64 "%s%s%s\n", t.name.c_str(),
                  std::string(dtype_name(t.type)).c_str(), format_dims(t.dims).c_str(), t.n_bytes, t.file_offset,
                  f.n_parts() > 1 ? (" part " + std::to_string(t.part + 1)).c_str() : "",
                  note.empty() ? "" : "  <- ", note.c_str());
    *out += line;
  }
}

void describe_totals(const GgufFile& f, std::optional<DType> main, std::string* out) {
  struct Sum {
    size_t n_tensors = 0;
    uint64_t n_elements = 0, n_bytes = 0;
  };
  std::map<std::string, Sum> by_type;
  Sum all;
  size_t n_fallbacks = 0;
  for (const auto& t : f.tensors()) {
    for (Sum* s : {&by_type[std::string(dtype_name(t.type))], &all}) {
      ++s->n_tensors;
      s->n_elements += t.n_elements;
      s->n_bytes += t.n_bytes;
    }
    n_fallbacks += !fallback_note(t, main).empty();
  }
  char line[256];
  std::snprintf(line, sizeof(line), "totals: %zu tensors, %" PRIu64 " elements, %" PRIu64 " bytes (%s)\n",
                all.n_tensors, all.n_elements, all.n_bytes, format_bytes(all.n_bytes).c_str());
  *out += line;
  for (const auto& [name, s] : by_type) {
    std::snprintf(line, sizeof(line), "  %-8s %5zu tensors %14" PRIu64 " elements %14" PRIu64 " bytes\n",
                  name.c_str(), s.n_tensors, s.n_elements, s.n_bytes);
    *out += line;
  }
  if (n_fallbacks > 0) {
    *out += "  " + std::to_string(n_fallbacks) + " matrices fell back from " + std::string(dtype_name(*main)) +
            " because their width is not whole blocks\n";
  }
}

}  // namespace

std::string format_gguf_value(const GgufValue& v, const DescribeOptions& options) {
  switch (v.type) {
    case GgufType::kString: return format_string(v.str, options.max_string_bytes);
    case GgufType::kBool: return v.u ? "true" : "false";
    case GgufType::kF32: case GgufType::kF64: return format_float(v.f);
    case GgufType::kI8: case GgufType::kI16: case GgufType::kI32: case GgufType::kI64: return std::to_string(v.i);
    case GgufType::kArray: {
      std::string out = "[";
      const size_t size = v.array_size();
      size_t n = size < options.max_array_items ? size : options.max_array_items;
      for (size_t i = 0; i < n; ++i) out += (i ? ", " : "") + format_gguf_value(v.item(i), options);
      if (n < size) out += ", ... (" + std::to_string(size) + " items)";
      return out + "]";
    }
    default: return std::to_string(v.u);
  }
}

std::string describe_gguf(const GgufFile& f, const DescribeOptions& options) {
  std::string out = "GGUF version " + std::to_string(f.version()) + ": " + f.path() + "\n";
  out += "  alignment " + std::to_string(f.alignment()) + ", " + std::to_string(f.n_parts()) +
         (f.n_parts() == 1 ? " part" : " parts") + "\n";
  std::optional<DType> main;
  if (auto ft = f.get_uint("general.file_type")) {
    out += "  file type " + std::string(file_type_name(static_cast<uint32_t>(*ft))) + " (general.file_type " +
           std::to_string(*ft) + ")\n";
    main = file_type_main_dtype(static_cast<uint32_t>(*ft));
  }
  out += "  mix " + format_quant_mix(quant_mix(f)) + "\n";
  out += "\n";
  describe_metadata(f, options, &out);
  out += "\n";
  if (options.show_tensors) {
    describe_tensors(f, main, &out);
    out += "\n";
  }
  describe_totals(f, main, &out);
  return out;
}

}  // namespace strata
