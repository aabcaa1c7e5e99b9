// SPDX-License-Identifier: MIT
/*
 * zcalls: zlib's crc32 and adler32 through Debian's libz, bound lazily (its
 * first call resolves a symbol inside libz: that call costs more), for the
 * steps counter's tests (tests/integration/test_translate.c) and benchmark
 * (scripts/bench-steps.sh).
 *
 *   zcalls [-s SIZE] [-n N] crc32|adler32
 *       N calls over the same SIZE bytes (default 1024, at most 65536) of a
 *       fixed pattern; prints the last checksum
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static unsigned char zbuf[65536];

int main(int argc, char **argv)
{
	long n = 10, size = 1024;
	unsigned long sum = 0;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt == 's')
			size = atol(optarg);
		else if (opt == 'n')
			n = atol(optarg);
		else
			return 2;
	}
	if (optind >= argc || size < 0 || size > (long)sizeof(zbuf))
		return 2;
	for (size_t i = 0; i < sizeof(zbuf); i++)
		zbuf[i] = (unsigned char)(i * 131u + (i >> 7));
	for (long i = 0; i < n; i++) {
		if (!strcmp(argv[optind], "crc32"))
			sum = crc32(0, zbuf, (uInt)size);
		else if (!strcmp(argv[optind], "adler32"))
			sum = adler32(1, zbuf, (uInt)size);
		else
			return 2;
	}
	printf("%s of %ld bytes, %ld times: %08lx\n", argv[optind], size, n, sum);
	return 0;
}
