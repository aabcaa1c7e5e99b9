// SPDX-License-Identifier: MIT
/*
 * A library with 1664 bytes of initial-exec TLS, for the attach tests: once a
 * process has dlopen'ed it, glibc's reserve of static TLS for dlopen'ed
 * objects (about 1.7 KiB in glibc 2.36) has no room left for the shim's 104.
 */
__thread char tlshog_block[1664] __attribute__((tls_model("initial-exec")));

char *tlshog_touch(void)
{
	return tlshog_block;
}
