// SPDX-License-Identifier: MIT
/*
 * scope: a program with functions of its own named as the libraries a
 * profiler may use name theirs (zlib's crc32, liblzma's lzma_code,
 * libelf's elf_begin, libunwind's unw_step), which it does not export.  It
 * looks each name up in its symbol scope, as a program that finds an
 * optional feature or a plugin's function does (dlsym(RTLD_DEFAULT), a
 * weak reference), calls the one it finds, or its own when there is none,
 * and prints what it found and what the call returned.  Without the shim
 * nothing is found; with it, nothing may be either.  Its own calls, on
 * stderr, are the hooked run's ground truth.
 */
#include <dlfcn.h>
#include <stdio.h>

#define SCOPE_CALLS 1000

/* Its own, with an answer no library's function gives. */
__attribute__((noinline)) unsigned long crc32(unsigned long crc, const unsigned char *buf,
					      unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		crc = crc * 31 + buf[i];
	return crc;
}

__attribute__((noinline)) int lzma_code(void *strm, int action)
{
	(void)strm;
	return 4200 + action;
}

__attribute__((noinline)) void *elf_begin(int fd, int cmd, void *ref)
{
	static char own[] = "scope's elf_begin";

	(void)fd, (void)cmd, (void)ref;
	return own;
}

__attribute__((noinline)) int unw_step(void *cursor)
{
	(void)cursor;
	return -4200;
}

/* Names of those libraries it does not define: found only if a library brings them. */
extern int inflate(void *strm, int flush) __attribute__((weak));
extern int lzma_easy_encoder(void *strm, unsigned preset, int check) __attribute__((weak));
extern unsigned elf_version(unsigned v) __attribute__((weak));
extern int _ULx86_64_init_local(void *cursor, void *uc) __attribute__((weak));
extern int __unw_init_local(void *cursor, void *uc) __attribute__((weak));

/* "NAME: none" or "NAME: OBJECT's", for what @p is. */
static void scope_say(const char *name, void *p)
{
	Dl_info info;

	if (!p)
		printf("%s: none\n", name);
	else if (dladdr(p, &info) && info.dli_fname)
		printf("%s: %s's\n", name, info.dli_fname);
	else
		printf("%s: somewhere\n", name);
}

typedef unsigned long (*crc32_fn)(unsigned long crc, const unsigned char *buf, unsigned len);
typedef int (*lzma_code_fn)(void *strm, int action);
typedef void *(*elf_begin_fn)(int fd, int cmd, void *ref);
typedef int (*unw_step_fn)(void *cursor);

int main(void)
{
	static const unsigned char text[] = "the shim brings nothing into its host";
	crc32_fn crc = (crc32_fn)dlsym(RTLD_DEFAULT, "crc32");
	lzma_code_fn code = (lzma_code_fn)dlsym(RTLD_DEFAULT, "lzma_code");
	elf_begin_fn begin = (elf_begin_fn)dlsym(RTLD_DEFAULT, "elf_begin");
	unw_step_fn step = (unw_step_fn)dlsym(RTLD_DEFAULT, "unw_step");
	unsigned long sum = 0;
	long total = 0;

	scope_say("crc32", (void *)crc);
	scope_say("lzma_code", (void *)code);
	scope_say("elf_begin", (void *)begin);
	scope_say("unw_step", (void *)step);
	scope_say("weak inflate", (void *)inflate);
	scope_say("weak lzma_easy_encoder", (void *)lzma_easy_encoder);
	scope_say("weak elf_version", (void *)elf_version);
	scope_say("weak _ULx86_64_init_local", (void *)_ULx86_64_init_local);
	scope_say("weak __unw_init_local", (void *)__unw_init_local);

	/* what it found, or its own */
	crc = crc ? crc : crc32;
	code = code ? code : lzma_code;
	begin = begin ? begin : elf_begin;
	step = step ? step : unw_step;
	for (int i = 0; i < SCOPE_CALLS; i++) {
		sum = crc(sum, text, sizeof(text) - 1);
		total += code(NULL, i % 4) + step(NULL);
	}
	printf("crc32: %lu\nlzma_code and unw_step: %ld\nelf_begin: %s\n", sum, total,
	       begin(-1, 0, NULL) ? "a pointer" : "NULL");
	/* the calls of its own functions it made, if it made them */
	if (crc == crc32)
		fprintf(stderr, "checker-truth: crc32 %d\n", SCOPE_CALLS);
	if (code == lzma_code)
		fprintf(stderr, "checker-truth: lzma_code %d\n", SCOPE_CALLS);
	if (step == unw_step)
		fprintf(stderr, "checker-truth: unw_step %d\n", SCOPE_CALLS);
	if (begin == elf_begin)
		fprintf(stderr, "checker-truth: elf_begin 1\n");
	return 0;
}
