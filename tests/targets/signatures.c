// SPDX-License-Identifier: MIT
/*
 * Matrix case "signatures": every way the System V x86-64 ABI passes and
 * returns values goes through a hooked function, and every result is
 * checked against a value computed without calling it.  Built with -mavx2,
 * so that the 32-byte vectors travel in ymm registers.  The vectors are GCC
 * vector types (the ABI of __m128 and __m256, without immintrin.h, which
 * costs a second of compile time in each of the 24 cells).
 *
 *   sum6        six integer arguments: rdi, rsi, rdx, rcx, r8, r9
 *   sum10       ten mixed-width integers: four on the stack
 *   vavg        varargs doubles (al = vector registers used)
 *   vfmt        a printf-like function, ints, doubles and strings
 *   swap_small  a struct of two ints by value and back (rax)
 *   rev_large   a 64-byte struct by value (on the stack) and back (sret in rdi)
 *   fmix        floats and doubles in xmm0-3, a float back
 *   many_dbl    ten doubles (two on the stack) between integers
 *   rot90       a struct of two doubles in and out (xmm0:xmm1)
 *   ldmul       long double in (stack) and out (x87 st0)
 *   mul128      __int128 in (rdi:rsi, rdx:rcx) and out (rax:rdx)
 *   addps       4 floats (an __m128) in xmm0/xmm1, out xmm0
 *   add8        8 floats (an __m256) in ymm0/ymm1, out ymm0
 *   cplx        double _Complex in and out (xmm0:xmm1)
 *
 * The first hooked call of the process and the first of a second thread
 * are add8: the shim's slow path (a thread's first evaluation opens its
 * dump through libc) must leave the upper halves of the ymm arguments alone.
 */
#include <complex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "matrix.h"

enum {
	F_SUM6,
	F_SUM10,
	F_VAVG,
	F_VFMT,
	F_SMALL,
	F_LARGE,
	F_FMIX,
	F_MANY,
	F_ROT90,
	F_LDMUL,
	F_MUL128,
	F_ADDPS,
	F_ADD8,
	F_CPLX,
	F_N
};
static const char *const names[F_N] = {
	"sum6",	    "sum10", "vavg",  "vfmt",	"swap_small", "rev_large", "fmix",
	"many_dbl", "rot90", "ldmul", "mul128", "addps",      "add8",	   "cplx",
};
static unsigned long calls[F_N];
static int failures;

HOOKED long sum6(long a, long b, long c, long d, long e, long f)
{
	calls[F_SUM6]++;
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

HOOKED long sum10(int a, long b, short c, signed char d, long e, int f, long g, int h, long i,
		  signed char j)
{
	calls[F_SUM10]++;
	return a - b + c * 3 - d + e * 5 - f + g * 7 - h + i * 9 - j;
}

HOOKED double vavg(int n, ...)
{
	va_list ap;
	double s = 0;

	calls[F_VAVG]++;
	va_start(ap, n);
	for (int k = 0; k < n; k++)
		s += va_arg(ap, double);
	va_end(ap);
	return n ? s / n : 0;
}

HOOKED __attribute__((format(printf, 3, 4))) int vfmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	calls[F_VFMT]++;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

struct small {
	int a, b;
};

HOOKED struct small swap_small(struct small s)
{
	struct small r = {s.b * 2, s.a - 1};

	calls[F_SMALL]++;
	return r;
}

struct large {
	long v[8];
};

HOOKED struct large rev_large(struct large l, long k)
{
	struct large r;

	calls[F_LARGE]++;
	for (int i = 0; i < 8; i++)
		r.v[i] = l.v[7 - i] * k;
	return r;
}

HOOKED float fmix(float a, double b, float c, double d)
{
	calls[F_FMIX]++;
	return (float)(a * 2 + b * 3 + c * 4 + d * 5);
}

HOOKED double many_dbl(int i0, double a, double b, double c, double d, double e, double f, double g,
		       double h, long i1, double i, double j)
{
	calls[F_MANY]++;
	return i0 + a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + i1 + 9 * i + 10 * j;
}

struct dpair {
	double x, y;
};

HOOKED struct dpair rot90(struct dpair p)
{
	struct dpair r = {-p.y, p.x};

	calls[F_ROT90]++;
	return r;
}

HOOKED long double ldmul(long double a, long double b)
{
	calls[F_LDMUL]++;
	return a * b + 0.25L;
}

HOOKED __int128 mul128(__int128 a, __int128 b)
{
	calls[F_MUL128]++;
	return a * b + 1;
}

typedef float v4sf __attribute__((vector_size(16)));
typedef float v8sf __attribute__((vector_size(32)));

HOOKED v4sf addps(v4sf a, v4sf b)
{
	calls[F_ADDPS]++;
	return a + b * 2.0f;
}

HOOKED v8sf add8(v8sf a, v8sf b)
{
	calls[F_ADD8]++;
	return a + b * 3.0f;
}

HOOKED double _Complex cplx(double _Complex z, double _Complex w)
{
	calls[F_CPLX]++;
	return z * w;
}

static void check(const char *what, int ok, const char *got)
{
	printf("%-10s %s %s\n", what, ok ? "ok" : "WRONG", got);
	failures += !ok;
}

static void check_add8(int round)
{
	v8sf a, b, r;
	char buf[256];
	int ok = 1;

	for (int i = 0; i < 8; i++) {
		a[i] = (float)(i + round);
		b[i] = (float)(10 * i + 1);
	}
	r = add8(a, b);
	for (int i = 0; i < 8; i++)
		ok &= r[i] == a[i] + 3 * b[i];
	snprintf(buf, sizeof(buf), "%g %g %g %g %g %g %g %g", r[0], r[1], r[2], r[3], r[4], r[5],
		 r[6], r[7]);
	check("add8", ok, buf);
}

static void round_all(int round)
{
	char buf[256], got[256];
	long r = round;

	check_add8(round);
	{
		long s = sum6(1 + r, 2, 3, 4, 5, 6 - r);

		snprintf(got, sizeof(got), "%ld", s);
		check("sum6", s == 1 + r + 4 + 9 + 16 + 25 + 6 * (6 - r), got);
	}
	{
		long s = sum10(1, 2 + r, -3, 4, 5, 6, 7, 8, 9 * r, -10);

		snprintf(got, sizeof(got), "%ld", s);
		check("sum10", s == 1 - (2 + r) - 9 - 4 + 25 - 6 + 49 - 8 + 81 * r + 10, got);
	}
	{
		double v = vavg(5, 1.5, 2.5, 3.0 + r, 4.0, 5.0);

		snprintf(got, sizeof(got), "%.17g", v);
		check("vavg", v == (1.5 + 2.5 + (3.0 + r) + 4.0 + 5.0) / 5, got);
	}
	{
		int n = vfmt(buf, sizeof(buf), "%d|%.3f|%s|%g|%ld|%.1f", 42 + round, 3.25, "str",
			     1e10, -7L, 0.5 * round);
		char want[256];
		int m = snprintf(want, sizeof(want), "%d|%.3f|%s|%g|%ld|%.1f", 42 + round, 3.25,
				 "str", 1e10, -7L, 0.5 * round);

		check("vfmt", n == m && !strcmp(buf, want), buf);
	}
	{
		struct small s = {3 + round, 4}, t = swap_small(s);

		snprintf(got, sizeof(got), "%d %d", t.a, t.b);
		check("swap_small", t.a == 8 && t.b == 2 + round, got);
	}
	{
		struct large l, t;
		int ok = 1;

		for (int i = 0; i < 8; i++)
			l.v[i] = i * 100 + round;
		t = rev_large(l, -3);
		for (int i = 0; i < 8; i++)
			ok &= t.v[i] == l.v[7 - i] * -3;
		snprintf(got, sizeof(got), "%ld .. %ld", t.v[0], t.v[7]);
		check("rev_large", ok, got);
	}
	{
		float f = fmix(1.5f, 2.25 + r, -0.5f, 8.0);

		snprintf(got, sizeof(got), "%.9g", f);
		check("fmix", f == (float)(1.5f * 2 + (2.25 + r) * 3 + -0.5f * 4 + 8.0 * 5), got);
	}
	{
		double v = many_dbl(1, 1, 2, 3, 4, 5, 6, 7, 8 + r, 100, 9, 10);

		snprintf(got, sizeof(got), "%.17g", v);
		check("many_dbl",
		      v == 1 + 1 + 4 + 9 + 16 + 25 + 36 + 49 + 8 * (8 + r) + 100 + 81 + 100, got);
	}
	{
		struct dpair p = {1.25 + r, -2.5}, q = rot90(p);

		snprintf(got, sizeof(got), "%g %g", q.x, q.y);
		check("rot90", q.x == 2.5 && q.y == 1.25 + r, got);
	}
	{
		long double v = ldmul(1.5L + r, 1e-3L);
		long double want = (1.5L + r) * 1e-3L + 0.25L;

		snprintf(got, sizeof(got), "%.21Lg", v);
		check("ldmul", v == want, got);
	}
	{
		__int128 a = ((__int128)1 << 70) + r, b = 3;
		__int128 v = mul128(a, b), want = a * b + 1;

		snprintf(got, sizeof(got), "%016llx%016llx", (unsigned long long)(v >> 64),
			 (unsigned long long)v);
		check("mul128", v == want, got);
	}
	{
		v4sf x = {1, 2, 3, 4 + (float)r}, y = {10, 20, 30, 40};
		v4sf o = addps(x, y);

		snprintf(got, sizeof(got), "%g %g %g %g", o[0], o[1], o[2], o[3]);
		check("addps", o[0] == 21 && o[1] == 42 && o[2] == 63 && o[3] == 84 + (float)r,
		      got);
	}
	{
		double _Complex z = cplx(1.0 + r + 2.0 * I, 3.0 - 1.0 * I);
		double _Complex want = (1.0 + r + 2.0 * I) * (3.0 - 1.0 * I);

		snprintf(got, sizeof(got), "%g%+gi", creal(z), cimag(z));
		check("cplx", z == want, got);
	}
}

static void *thread_main(void *arg)
{
	/* this thread's first hooked call is add8 too */
	round_all((int)(intptr_t)arg);
	return NULL;
}

int main(void)
{
	pthread_t th;

	round_all(0);
	round_all(1);
	fflush(stdout);
	if (pthread_create(&th, NULL, thread_main, (void *)(intptr_t)2) || pthread_join(th, NULL)) {
		printf("pthread failed\n");
		return 3;
	}
	printf("%s\n", failures ? "FAILED" : "all results right");
	for (int i = 0; i < F_N; i++)
		TRUTH("truth", names[i], calls[i]);
	return failures ? 1 : 0;
}
