// SPDX-License-Identifier: MIT
/*
 * Matrix case "spec": a program whose hooked functions live in a shared
 * object, libspec.so, linked at build time (spec_main) or dlopen'ed after
 * start-up (spec_dlopen, built from this file with -DSPEC_DLOPEN).  The
 * hooks name the object: function:lib_*@libspec.so.
 */
#include <stdio.h>

#ifdef SPEC_DLOPEN
#include <dlfcn.h>
#endif

#include "libspec.h"
#include "matrix.h"

static const char *const names[] = {"lib_add", "lib_mul", "lib_chain", "lib_internal"};

int main(void)
{
	long (*add)(long, long), (*mul)(long, long), (*chain)(long);
	long (*truth)(const char *);
	long sum = 0;

#ifdef SPEC_DLOPEN
	void *h = dlopen("libspec.so", RTLD_NOW);

	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 3;
	}
	*(void **)&add = dlsym(h, "lib_add");
	*(void **)&mul = dlsym(h, "lib_mul");
	*(void **)&chain = dlsym(h, "lib_chain");
	*(void **)&truth = dlsym(h, "lib_truth");
	if (!add || !mul || !chain || !truth) {
		printf("dlsym failed\n");
		return 3;
	}
#else
	add = lib_add;
	mul = lib_mul;
	chain = lib_chain;
	truth = lib_truth;
#endif
	for (long i = 0; i < 500; i++) {
		sum += add(i, 7);
		if (i % 2)
			sum += mul(i, 3);
		if (i % 5 == 0)
			sum += chain(i);
	}
	printf("sum %ld\n", sum);
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		TRUTH("truth", names[i], truth(names[i]));
	return 0;
}
