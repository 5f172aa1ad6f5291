// The algebra loops of ../shared/anchors/cute_dyn_algebra.cpp (same inputs, same per-operation
// work), with the operation and the iteration count from the command line, for instruction
// counting (tools/algebra_counts.sh): `cute OP ITERS`, OP one of composition, logical_divide,
// complement. The loop's wall-clock time per operation goes to stderr (`ns/op N`), for the
// script's interleaved timing.
#include <cute/layout.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
using namespace cute;
template <class F> __attribute__((noinline)) long run(long iters, F f) {
  long acc = 0;
  for (long i = 0; i < iters; ++i) acc += f(i);
  return acc;
}
int main(int argc, char** argv) {
  std::mt19937 rng(7);
  int N = 1024;
  std::vector<int> m(N), n(N);
  for (int i = 0; i < N; ++i) { m[i] = 2 << (rng() % 4); n[i] = 2 << (rng() % 4); rng(); }
  const char* op = argc > 1 ? argv[1] : "";
  long iters = argc > 2 ? atol(argv[2]) : 0;
  long acc = 0;
  auto t0 = std::chrono::steady_clock::now();
  if (!strcmp(op, "composition")) {
    acc = run(iters, [&](long i) {
      auto A = make_layout(make_shape(m[i & 1023] * 4, n[i & 1023] * 4), make_stride(1, m[i & 1023] * 4));
      auto B = make_layout(make_shape(4, 2), make_stride(2, 8));
      auto C = composition(A, B);
      return (long)C(3) + size(C);
    });
  } else if (!strcmp(op, "logical_divide")) {
    acc = run(iters, [&](long i) {
      auto A = make_layout(make_shape(m[i & 1023] * 4, n[i & 1023] * 4), make_stride(1, m[i & 1023] * 4));
      auto T = make_tile(make_layout(2), make_layout(2));
      auto C = logical_divide(A, T);
      return (long)C(5) + size(C);
    });
  } else if (!strcmp(op, "complement")) {
    acc = run(iters, [&](long i) {
      auto A = make_layout(make_shape(Int<4>{}, m[i & 1023]), make_stride(Int<1>{}, Int<16>{}));
      auto C = complement(A, 4096);
      return (long)C(1) + size(C);
    });
  } else {
    fprintf(stderr, "usage: cute composition|logical_divide|complement ITERS\n");
    return 2;
  }
  auto t1 = std::chrono::steady_clock::now();
  if (iters > 0) fprintf(stderr, "ns/op %.4f\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  printf("%ld\n", acc);
}
