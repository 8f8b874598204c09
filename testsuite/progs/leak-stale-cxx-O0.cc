// leak-stale-cxx-O0.cc - leak-stale-cxx.cc compiled as with -O0 (the
// build's CXXFLAGS come after a program's own flags, so the pragma does
// it).
#pragma GCC optimize ("O0")
#include "leak-stale-cxx.cc"
