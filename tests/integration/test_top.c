// SPDX-License-Identifier: MIT
/*
 * extprof top on a live run, through the real shim: tests/targets/paced.c
 * calls pc_step every 250 ms, more slowly than top draws its frames
 * (every 100 ms), so that most frames see no new evaluation.  Each frame's
 * eval/s is over the time between the last two changes the frames saw, and
 * is never 0 while the function is being called.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

TestSuite(top, .timeout = 180);

/* The number at @p ("1,234", "0.4"), thousands separators skipped; @p moved past it. */
static double number_at(const char **p)
{
	double v = 0, scale = 0;

	while (**p == ' ')
		(*p)++;
	for (; (**p >= '0' && **p <= '9') || **p == ',' || **p == '.'; (*p)++) {
		if (**p == '.') {
			scale = 1;
		} else if (**p != ',') {
			v = v * 10 + (**p - '0');
			scale *= 10;
		}
	}
	return scale > 0 ? v / scale : v;
}

/*
 * From top's frames in @out (until the final report): for each frame that
 * says the process is running and has pc_step's row, its eval/s.  Their
 * number.
 */
static size_t running_rates(const char *out, double *rates, size_t cap, size_t *frames)
{
	bool running = false;
	size_t n = 0;

	*frames = 0;
	for (const char *line = out; *line && strncmp(line, "extprof report", 14);) {
		const char *end = strchr(line, '\n'), *p;

		if (!end)
			end = line + strlen(line);
		if (!strncmp(line, "extprof top: ", 13)) {
			running = memmem(line, (size_t)(end - line), "(1 running)", 11) != NULL;
			(*frames)++;
		}
		p = memmem(line, (size_t)(end - line), "pc_step@paced ", 14);
		if (p && running && n < cap) {
			p += 14;
			number_at(&p); /* evaluations */
			rates[n++] = number_at(&p);
		}
		line = *end ? end + 1 : end;
	}
	return n;
}

Test(top, rate_is_over_the_time_between_updates_never_0_while_called)
{
	char *dir = harness_tmpdir("top"), *data;
	struct run_result top, run;
	struct spawned s;
	double rates[1000];
	size_t n, frames, zeros = 0;

	cr_assert(asprintf(&data, "%s/data", dir) > 0);
	{
		const char *argv[] = {harness_path("EXTPROF_BIN"),
				      "run",
				      "-d",
				      data,
				      "--counter",
				      "tsc",
				      "-H",
				      "function:pc_step",
				      "--",
				      harness_path("PACED_TARGET"),
				      "16",
				      "250",
				      NULL};

		harness_spawn(argv, NULL, &s);
	}
	{
		/* until the run ends: then top prints the final report and exits 0 */
		const char *argv[] = {harness_path("EXTPROF_BIN"),
				      "top",
				      "-d",
				      "0.1",
				      "--wait",
				      "30",
				      data,
				      NULL};

		harness_run(argv, NULL, &top);
	}
	harness_reap(&s, &run);
	cr_assert_eq(run.status, 0, "extprof run: %s", run.err);
	cr_expect(strstr(run.out, "paced: 16"), "%s", run.out);
	cr_assert_eq(top.status, 0, "extprof top: %s", top.err);
	n = running_rates(top.out, rates, sizeof(rates) / sizeof(rates[0]), &frames);
	/* 16 calls 250 ms apart: about 4 s of frames 100 ms apart */
	cr_assert_geq(n, 10, "%zu frames with pc_step running, of %zu:\n%s", n, frames, top.out);
	for (size_t i = 0; i < n; i++)
		zeros += rates[i] == 0;
	cr_expect_eq(zeros, 0, "%zu of %zu frames read 0 eval/s while pc_step was called:\n%s",
		     zeros, n, top.out);
	harness_free(&top);
	harness_free(&run);
	free(data);
	harness_rmdir(dir);
}
