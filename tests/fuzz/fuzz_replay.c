// SPDX-License-Identifier: MIT
/*
 * fuzz_replay: the fuzz target's function over files, without libFuzzer:
 * every file named, and every file of every directory named (the seed
 * corpus, crashes found earlier).  The ordinary test suite runs it over
 * tests/fuzz/corpus, under the sanitizers too (scripts/test.sh).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0, k;

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
	} while (k);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int replay(const char *path, size_t *count)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int err = 0;

	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	while ((de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&p, "%s/%s", path, de->d_name) < 0)
			abort();
		err |= replay(p, count);
		free(p);
	}
	closedir(d);
	return err;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int err = 0;

	for (int i = 1; i < argc; i++)
		err |= replay(argv[i], &count);
	printf("replayed %zu inputs\n", count);
	return err || !count ? 1 : 0;
}
