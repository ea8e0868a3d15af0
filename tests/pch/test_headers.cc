// The translation unit that builds tests/pch/test_headers.h's precompiled form (CMake compiles the
// header through it); it defines nothing.
