// The SIMD object files must not define symbols the linker merges across files (inline
// functions, template instances): the linker could keep their AVX2 copy for callers in
// baseline code, which would then crash with an illegal instruction on CPUs without
// AVX2. Reads the symbol table of the built library with nm.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

// Objects built with SIMD flags: cpu/avx2_* (built for AVX2 and again for AVX-512) and
// cpu/avx512_*.
bool is_simd_member(const std::string& member) {
  return member.rfind("avx2_", 0) == 0 || member.rfind("avx512_", 0) == 0;
}

TEST(IsaIsolation, Avx2ObjectsDefineNoMergeableSymbols) {
  const std::string cmd = std::string("nm -C ") + STRATA_KERNELS_LIBRARY + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char line[4096];
  std::string member, offenders;
  int avx2_members = 0;
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::string s(line);
    if (s.size() > 2 && s[s.size() - 2] == ':' && s.find(' ') == std::string::npos) {
      member = s.substr(0, s.size() - 2);
      if (is_simd_member(member)) ++avx2_members;
      continue;
    }
    // "<address> <type> <name>": W/V are weak definitions, u is a unique global (both merged).
    // DW.ref.__gxx_personality_v0 is a pointer to libstdc++'s exception personality routine
    // (objects with cleanups get one, e.g. under ASan): data, the same in every object, no
    // SIMD code to leak.
    // "typeinfo [name] for <function type>": clang's UBSan (-fsanitize=function, the sanitized
    // tree) emits the type_info of each function type a call checks; data, too.
    if (s.find("DW.ref.__gxx_personality_v0") != std::string::npos) continue;
    if (s.find(" typeinfo for ") != std::string::npos) continue;
    if (s.find(" typeinfo name for ") != std::string::npos) continue;
    if (is_simd_member(member) && s.size() > 19 && (s[17] == 'W' || s[17] == 'V' || s[17] == 'u')) {
      offenders += member + ": " + s;
    }
  }
  const int status = pclose(pipe);
  ASSERT_EQ(0, status) << "nm failed on " << STRATA_KERNELS_LIBRARY;
  EXPECT_GT(avx2_members, 0) << "no avx2_*.o members found in the library";
  EXPECT_TRUE(offenders.empty()) << offenders;
}

}  // namespace
