// SPDX-License-Identifier: MIT
/*
 * A program linked with Debian's libjq (tests/integration/test_real.c):
 * invalids(N) calls jv_invalid, a 5-byte `xor; xor; ret` whose ret ends the
 * patched bytes, N times and nothing else of libjq, so that
 * EXTPROF_WINDOW=invalids makes the count exact; then it parses and prints
 * a JSON text, as jq does, which calls jv_invalid in libjq itself.
 */
#include <stdio.h>
#include <stdlib.h>

#include <jv.h>

static volatile long kinds;

__attribute__((noinline)) void invalids(long n)
{
	for (long i = 0; i < n; i++) {
		jv v = jv_invalid();

		kinds += v.kind_flags;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	jv doc = jv_parse("{\"a\": [1, 2, {\"b\": null}], \"c\": \"text\"}");
	jv s = jv_dump_string(doc, 0);

	invalids(n);
	printf("%ld invalids, kinds %ld, %s\n", n, (long)kinds, jv_string_value(s));
	jv_free(s);
	return 0;
}
