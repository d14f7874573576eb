/* bench/plain_deal.c: a plain C shuffle-and-deal, the peer of rummy51.deal in
 * bench/test_bench_deal.py.  Deals N hands of W cards from a D-card deck
 * (codes 0..D-1) with a partial Fisher-Yates shuffle driven by an inline
 * PCG64 (XSL-RR, 128-bit LCG, numpy's generator) and Lemire's unbiased
 * bounded ints, then prints the time of the deal loop in nanoseconds and a
 * checksum (so the loop cannot be optimised away).
 * Usage: plain_deal N W D            Build: cc -O3 -o plain_deal plain_deal.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef __uint128_t u128;
static u128 st, inc;
static int has32;
static uint32_t buf32;

static inline uint64_t pcg64(void) {
    const u128 mult = (((u128)0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;
    st = st * mult + inc;
    uint64_t x = (uint64_t)(st >> 64) ^ (uint64_t)st;
    unsigned rot = (unsigned)(st >> 122);
    return (x >> rot) | (x << ((-rot) & 63));
}
static inline uint32_t next32(void) {
    if (has32) { has32 = 0; return buf32; }
    uint64_t v = pcg64();
    has32 = 1; buf32 = (uint32_t)(v >> 32);
    return (uint32_t)v;
}
static inline uint32_t bounded(uint32_t s) {
    uint64_t m = (uint64_t)next32() * s;
    uint32_t low = (uint32_t)m;
    if (low < s) {
        uint32_t t = (uint32_t)(-s) % s;
        while (low < t) { m = (uint64_t)next32() * s; low = (uint32_t)m; }
    }
    return (uint32_t)(m >> 32);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: plain_deal N W D\n"); return 2; }
    long n = atol(argv[1]); int w = atoi(argv[2]), d = atoi(argv[3]);
    if (n < 1 || w < 1 || d < w || d > 255) { fprintf(stderr, "plain_deal: bad N W D\n"); return 2; }
    uint8_t deck[256];
    uint8_t *out = malloc((size_t)n * w);
    if (!out) { fprintf(stderr, "plain_deal: out of memory\n"); return 2; }
    for (int i = 0; i < d; i++) deck[i] = (uint8_t)i;
    st = 12345; inc = (((u128)0xDA3E39CB94B95BDBULL) << 64) | 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++)
        for (int k = 0; k < w; k++) {
            int j = k + (int)bounded((uint32_t)(d - k));
            uint8_t t = deck[k]; deck[k] = deck[j]; deck[j] = t;
            out[i * w + k] = deck[k];
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t sum = 0;
    for (long i = 0; i < n * w; i++) sum = sum * 31 + out[i];
    printf("%lld %llu\n", (long long)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)),
           (unsigned long long)sum);
    free(out);
    return 0;
}
