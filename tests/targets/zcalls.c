// SPDX-License-Identifier: MIT
/*
 * Debian's libz, bound lazily (the steps tests, tests/integration/test_steps.c):
 * built without -z now, so that the first call through each PLT entry, the
 * program's and libz's own (crc32 calls crc32_z, adler32 adler32_z), runs
 * the dynamic loader's binding.
 *
 *   ./zcalls crc32|adler32 BYTES N    the function over BYTES bytes, N times
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int main(int argc, char **argv)
{
	unsigned long sum = 0;
	unsigned char *buf;
	size_t len;
	long n;

	if (argc != 4 || (strcmp(argv[1], "crc32") && strcmp(argv[1], "adler32"))) {
		fprintf(stderr, "usage: zcalls crc32|adler32 BYTES N\n");
		return 2;
	}
	len = strtoul(argv[2], NULL, 10);
	n = atol(argv[3]);
	buf = malloc(len ? len : 1);
	if (!buf)
		return 3;
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (long i = 0; i < n; i++)
		sum += !strcmp(argv[1], "crc32") ? crc32(0, buf, (uInt)len)
						 : adler32(1, buf, (uInt)len);
	printf("%s of %zu bytes, %ld times: %lu\n", argv[1], len, n, sum);
	free(buf);
	return 0;
}
