// SPDX-License-Identifier: MIT
/*
 * The report as the built extprof prints it: text header and table, the
 * stable JSON keys (docs/json.md) with exact numbers, CSV quoting, sorting,
 * --strict, and the usage texts.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

TestSuite(report, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 30);

static int run(const char *const *argv, char **out, char **err)
{
	int status = xt_run(argv, NULL, out, err);

	cr_assert(WIFEXITED(status), "extprof died: status %d", status);
	return WEXITSTATUS(status);
}

/*
 * Two processes of the example checker: quorum_agrees costs 2400 per
 * evaluation (calibration 24, deltas 2424), can_vote 30 and sometimes far
 * more, a symbol with a comma and a quote, and a declaration never called.
 */
static void checker_run(bool complete_b)
{
	static const struct dump_decl_info decls[] = {
		{"invariant", "quorum_agrees", "checker", 0x1130},
		{"guard", "can_vote", "checker", 0x1200},
		{"function", "odd,\"name\"", "libodd.so", 0x40},
		{"terminal", "never_called", "checker", 0x1300},
	};
	char *a = xt_path(xt_dir, "a.xpd"), *b = xt_path(xt_dir, "b.xpd");
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, "var:steps", 24, 100, 0x100);
	xt_create(&m, a, &meta, decls, 4, 0);
	xt_record(&m, 0, 2424, 1000);
	xt_record(&m, 1, 54, 90);
	xt_record(&m, 1, 1054, 10);
	xt_record(&m, 2, 30, 2);
	m.hdr->run_total = 10000000;
	xt_finish(&m, true);
	xt_meta(&meta, "var:steps", 24, 200, 0x200);
	xt_create(&m, b, &meta, decls, 4, 0);
	xt_record(&m, 0, 2424, 500);
	m.hdr->run_total = 5000000;
	xt_finish(&m, complete_b);
	free(a);
	free(b);
}

Test(report, text_header_table_and_legend)
{
	char *out, *err;

	checker_run(true);
	cr_assert_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(strstr(out, "extprof report: 2 processes (pids 100, 200), 2 workers"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "counter      var:steps (steps), deterministic"), "%s", out);
	cr_expect_not_null(strstr(out, "calibration  24 steps per evaluation"), "%s", out);
	cr_expect_not_null(strstr(out, "run total    15,000,000 steps"), "%s", out);
	cr_expect_not_null(strstr(out, "status       complete"), "%s", out);
	cr_expect_not_null(strstr(out, "kind       declaration"), "%s", out);
	/* 1500 evaluations x 2400 = 3,600,000 = 24.0 % of 15,000,000 */
	cr_expect_not_null(strstr(out, "invariant  quorum_agrees@checker        1,500     2,400  "
				       "3,600,000  24.0%  3,600,000      24.0%      1.00\n"),
			   "%s", out);
	/* observed 13,000 of 15,000,000: 0.1 %, beside a cost share under 0.1 % */
	cr_expect_not_null(strstr(out, "guard      can_vote@checker               100        30  "
				       "    3,000  <0.1%     13,000       0.1%      4.33  "
				       "state-dependent\n"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "  obs share  obs/cost  flags\n"),
			   "no recursive or abandoned column without them: %s", out);
	cr_expect_not_null(strstr(out, "state-dependent"), "%s", out);
	cr_expect_not_null(strstr(out, "never_called@checker"), "%s", out);
	cr_expect_not_null(strstr(out, "flags: state-dependent   observed >= cost x 1.25"), "%s",
			   out);
	cr_expect_null(strchr(out, '\033'), "colour in a pipe");
	/* most expensive first */
	cr_expect_lt(strstr(out, "quorum_agrees@"), strstr(out, "can_vote@"));
	cr_expect_str_empty(err);
	free(out);
	free(err);
}

Test(report, json_has_the_contract_keys_and_exact_numbers)
{
	char *out, *err;

	checker_run(true);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, &out, &err),
		0, "%s", err);
	cr_expect_not_null(strstr(out, "\"counter\": {\n    \"name\": \"var:steps\",\n    "
				       "\"unit\": \"steps\",\n    \"deterministic\": true\n  }"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"calibration\": 24,"));
	cr_expect_not_null(strstr(out, "\"processes\": 2,"));
	cr_expect_not_null(strstr(out, "\"workers\": 2,"));
	cr_expect_not_null(strstr(out, "\"complete\": true,"));
	cr_expect_not_null(strstr(out, "\"run_total\": 15000000,"));
	cr_expect_not_null(
		strstr(out,
		       "\"kind\": \"invariant\",\n      \"name\": \"quorum_agrees\",\n      "
		       "\"object\": \"checker\",\n"
		       "      \"evaluations\": 1500,\n      \"per_eval\": 2400,\n      \"cost\": "
		       "3600000,\n"
		       "      \"share\": 0.24,\n      \"observed\": 3600000,\n      \"settled\": "
		       "true,\n"
		       "      \"recursive\": 0,\n      \"abandoned\": 0,\n      \"outside\": 0,\n"
		       "      \"p50\": 2400,\n      \"p99\": 2400,\n      \"flags\": []"),
		"%s", out);
	/* can_vote: floor 54 - 24 = 30 x 100 = 3000; observed 90*30 + 10*1030 = 13000 */
	cr_expect_not_null(strstr(out, "\"name\": \"can_vote\",\n      \"object\": \"checker\",\n"
				       "      \"evaluations\": 100,\n      \"per_eval\": 30,\n     "
				       " \"cost\": 3000,"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"observed\": 13000,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"flags\": [\n        \"state-dependent\"\n      ]"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "\"name\": \"odd,\\\"name\\\"\""), "%s", out);
	cr_expect_not_null(strstr(out,
				  "\"name\": \"never_called\",\n      \"object\": \"checker\",\n"
				  "      \"evaluations\": 0,"),
			   "%s", out);
	free(out);
	free(err);
}

/*
 * The steps counter: 1000 evaluations of check, 10 of them stepped (5 of
 * 100 instructions, 5 of 300); 50 of idle, none stepped.
 */
Test(report, steps_sampled_figures)
{
	static const struct dump_decl_info decls[] = {
		{"invariant", "check", "checker", 0x1130},
		{"guard", "idle", "checker", 0x1200},
	};
	char *a = xt_path(xt_dir, "a.xpd"), *out, *err;
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, "steps", 0, 100, 0x100);
	meta.counter = EXTPROF_COUNTER_STEPS;
	meta.counter_flags |= EXTPROF_COUNTER_F_DETERMINISTIC | EXTPROF_COUNTER_F_SAMPLED;
	meta.step_first = 1;
	meta.step_every = 1048576;
	meta.step_limit = 1000000;
	xt_create(&m, a, &meta, decls, 2, 0);
	xt_record(&m, 0, 100, 5);
	xt_record(&m, 0, 300, 5);
	m.decls[0].evaluations += 990;
	m.decls[1].evaluations = 50;
	m.hdr->run_total = 12345;
	xt_finish(&m, true);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, &out, &err),
		0, "%s", err);
	cr_expect_not_null(strstr(out, "\"deterministic\": true,\n    \"engine\": \"trap\",\n    "
				       "\"sampled\": true,\n    "
				       "\"step_first\": 1,\n    \"step_every\": 1048576,\n    "
				       "\"step_limit\": 1000000\n  }"),
			   "%s", out);
	/* a sampled counter measured the stepped evaluations, not the run */
	cr_expect_not_null(strstr(out, "\"run_total\": 0,"), "%s", out);
	/* the least of the stepped; observed their mean (200) x 1000 */
	cr_expect_not_null(strstr(out, "\"evaluations\": 1000,\n      \"per_eval\": 100,\n      "
				       "\"cost\": 100000,"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"observed\": 200000,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"p50\": 100,\n      \"p99\": 300,\n      \"flags\": [\n"
				       "        \"state-dependent\"\n      ],\n      \"hits\": 5,\n"
				       "      \"observed_share\": 0,\n      \"negative\": 0,\n"
				       "      \"stepped\": 10"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"flags\": [\n        \"unstepped\"\n      ],\n      "
				       "\"hits\": 0,\n      \"observed_share\": 0,\n      "
				       "\"negative\": 0,\n      \"stepped\": 0"),
			   "%s", out);
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(strstr(out, "counter      steps (instructions), deterministic"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "sampled      10 of 1,050 evaluations stepped: the first 1 "
				       "and every 1,048,576th of each\n             declaration"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "run total    not measured"), "%s", out);
	cr_expect_not_null(strstr(out, "calibration  none: steps counts none of the hook's own"
				       " instructions\n"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "idle@checker            50         -        0      -  "
				       "       0          -         -  unstepped"),
			   "%s", out);
	free(out);
	free(err);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "csv", xt_dir, NULL}, &out, &err),
		0, "%s", err);
	cr_expect_not_null(strstr(out, ",flags,observed_share,stepped\r\n"), "%s", out);
	cr_expect_not_null(strstr(out, "invariant,check,checker,1000,100,100000,"), "%s", out);
	cr_expect_not_null(strstr(out, ",state-dependent,0,10\r\n"), "%s", out);
	cr_expect_not_null(strstr(out, ",unstepped,0,0\r\n"), "%s", out);
	free(out);
	free(err);
	free(a);
}

/*
 * steps by the code cache: every evaluation counted, the run total
 * measured; an evaluation without a delta (it ran in part natively) is not
 * counted whole, flagged and said in the head.
 */
Test(report, steps_translated_figures)
{
	static const struct dump_decl_info decls[] = {
		{"invariant", "check", "checker", 0x1130},
		{"guard", "jit", "checker", 0x1200},
		{"guard", "native", "checker", 0x1280},
	};
	char *a = xt_path(xt_dir, "a.xpd"), *out, *err, *line, tok[3][64];
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, "steps", 0, 100, 0x100);
	meta.counter = EXTPROF_COUNTER_STEPS;
	meta.counter_flags |= EXTPROF_COUNTER_F_DETERMINISTIC | EXTPROF_COUNTER_F_TRANSLATED;
	meta.step_every = 1;
	xt_create(&m, a, &meta, decls, 3, 0);
	xt_record(&m, 0, 100, 5);
	xt_record(&m, 0, 300, 5);
	/* 5 of jit's 8 evaluations whole */
	xt_record(&m, 1, 40, 5);
	m.decls[1].evaluations += 3;
	/* none of native's 4 whole (a JIT's code): no figure, not a per-eval of 0 */
	m.decls[2].evaluations = 4;
	m.hdr->run_total = 2200;
	xt_finish(&m, true);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, &out, &err),
		0, "%s", err);
	cr_expect_not_null(
		strstr(out, "\"deterministic\": true,\n    \"engine\": \"translate\"\n  }"), "%s",
		out);
	cr_expect_null(strstr(out, "\"sampled\""), "%s", out);
	cr_expect_not_null(strstr(out, "\"run_total\": 2200,"), "%s", out);
	/* every evaluation of check whole: observed the sum, 5 x 100 + 5 x 300 */
	cr_expect_not_null(strstr(out, "\"observed\": 2000,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"not_whole\": 0,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"evaluations\": 8,\n      \"per_eval\": 40,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"not-whole\""), "%s", out);
	cr_expect_not_null(strstr(out, "\"not_whole\": 3,"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(
		strstr(out, "counted      every evaluation, from a code cache: 15 of 22 "
			    "counted whole;\n             7 ran in part natively (not-whole)"),
		"%s", out);
	line = strstr(out, "native@checker");
	cr_assert(line && sscanf(line, "%63s %63s %63s", tok[0], tok[1], tok[2]) == 3, "%s", out);
	cr_expect_str_eq(tok[1], "4");
	cr_expect_str_eq(tok[2], "-", "per-eval of a row none of whose evaluations was whole");
	cr_expect(strstr(line, "not-whole") && strstr(line, "not-whole") < strchr(line, '\n'), "%s",
		  line);
	cr_expect_not_null(strstr(out, "run total    2,200 instructions"), "%s", out);
	cr_expect_not_null(strstr(out, "calibration  none: steps counts none of the hook's own"
				       " instructions\n"),
			   "%s", out);
	free(out);
	free(err);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "csv", xt_dir, NULL}, &out, &err),
		0, "%s", err);
	cr_expect_not_null(strstr(out, ",observed_share,not_whole\r\n"), "%s", out);
	free(out);
	free(err);
	free(a);
}

Test(report, csv_quotes_by_rfc4180)
{
	char *out, *err;

	checker_run(true);
	cr_assert_eq(run((const char *[]){"x", "report", "--format=csv", xt_dir, NULL}, &out, &err),
		     0);
	cr_expect_eq(strncmp(out, "kind,name,object,evaluations,per_eval,cost,share,observed,", 57),
		     0, "%s", out);
	cr_expect_not_null(strstr(out, "\r\ninvariant,quorum_agrees,checker,1500,2400,3600000,0.24,"
				       "3600000,1.0000,true,"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\r\nfunction,\"odd,\"\"name\"\"\",libodd.so,2,6,12,"), "%s",
			   out);
	/* two processes: how each declaration spread over them follows */
	cr_expect_not_null(strstr(out, ",state-dependent,0.000866666667,2,"), "%s", out);
	cr_expect(strstr(out, "flags,observed_share,processes,measured,per_eval_least,"), "%s",
		  out);
	free(out);
	free(err);
}

Test(report, sort_by_name_and_evaluations)
{
	char *out, *err;

	checker_run(true);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--sort", "name", xt_dir, NULL}, &out, &err),
		0);
	cr_expect_lt(strstr(out, "can_vote@"), strstr(out, "never_called@"));
	cr_expect_lt(strstr(out, "never_called@"), strstr(out, "odd,"));
	cr_expect_lt(strstr(out, "odd,"), strstr(out, "quorum_agrees@"));
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "report", "--sort", "evaluations", xt_dir, NULL},
			 &out, &err),
		     0);
	cr_expect_lt(strstr(out, "quorum_agrees@"), strstr(out, "can_vote@"));
	cr_expect_lt(strstr(out, "can_vote@"), strstr(out, "odd,"));
	free(out);
	free(err);
}

Test(report, incomplete_process_is_said_and_refused_with_strict)
{
	char *out, *err;

	checker_run(false);
	cr_assert_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(strstr(out, "status       incomplete: pid 200 did not finish cleanly"),
			   "%s", out);
	free(out);
	free(err);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, &out, &err),
		0);
	cr_expect_not_null(strstr(out, "\"complete\": false,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"incomplete_pids\": [\n    200\n  ]"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "report", "--strict", xt_dir, NULL}, &out, &err), 2);
	cr_expect_not_null(strstr(err, "b.xpd: incomplete: process 200 did not finish cleanly, and "
				       "--strict refuses incomplete runs (offset 20)\n"),
			   "%s", err);
	free(out);
	free(err);
}

Test(report, stat_option_changes_per_eval)
{
	char *out, *err;

	checker_run(true);
	cr_assert_eq(run((const char *[]){"x", "report", "--stat", "mean", "--format", "json",
					  xt_dir, NULL},
			 &out, &err),
		     0);
	/* can_vote mean: 13000 / 100 = 130 */
	cr_expect_not_null(strstr(out, "\"name\": \"can_vote\",\n      \"object\": \"checker\",\n"
				       "      \"evaluations\": 100,\n      \"per_eval\": 130,\n    "
				       "  \"cost\": 13000,"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\"stat\": \"mean\""), "%s", out);
	free(out);
	free(err);
}

Test(report, bad_options_are_one_line_and_exit_2)
{
	static const char *const cases[][6] = {
		{"x", "report", "--format", "xml", "d", NULL},
		{"x", "report", "--sort", "size", "d", NULL},
		{"x", "report", "--stat", "max", "d", NULL},
		{"x", "report", "--flag-ratio", "-1", "d", NULL},
		{"x", "report", "--bogus", "d", NULL},
		{"x", "report", NULL},
		{"x", "frobnicate", NULL},
		{"x", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;

		cr_expect_eq(run(cases[i], &out, &err), 2, "case %zu", i);
		cr_expect_eq(strncmp(err, "extprof", 7), 0, "case %zu: %s", i, err);
		cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "case %zu not one line: %s",
			     i, err);
		free(out);
		free(err);
	}
}

Test(report, help_and_version)
{
	char *out, *err;

	cr_assert_eq(run((const char *[]){"x", "--help", NULL}, &out, &err), 0);
	cr_expect_not_null(strstr(out, "extprof report [options] DIR|FILE..."));
	cr_expect_not_null(strstr(out, "extprof run [options] -- PROGRAM [ARGS...]"));
	cr_expect_not_null(strstr(out, "extprof dump FILE"));
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "report", "--help", NULL}, &out, &err), 0);
	cr_expect_not_null(strstr(out, "--flag-ratio R"));
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "--version", NULL}, &out, &err), 0);
	cr_expect_eq(strncmp(out, "extprof ", 8), 0);
	free(out);
	free(err);
}

Test(report, dump_command_shows_fields)
{
	char *out, *err, *a;

	checker_run(true);
	a = xt_path(xt_dir, "a.xpd");
	cr_assert_eq(run((const char *[]){"x", "dump", a, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(strstr(out, "magic            \"XPROFDMP\""), "%s", out);
	cr_expect_not_null(strstr(out, "flags            0x3 complete compact"), "%s", out);
	cr_expect_not_null(strstr(out, "calibration      24"), "%s", out);
	cr_expect_not_null(strstr(out, "[0] invariant:quorum_agrees@checker"), "%s", out);
	cr_expect_not_null(strstr(out, "evaluations 1000 floor 2424 floor_hits 1000"), "%s", out);
	cr_expect_not_null(strstr(out, "[3] terminal:never_called@checker"), "%s", out);
	cr_expect_not_null(strstr(out, "floor none"), "%s", out);
	cr_expect_not_null(strstr(out, "HIST_SPARSE"), "%s", out);
	free(out);
	free(err);
	free(a);
}

/* Thousands of files: one process of many workers, read one at a time. */
Test(report, directory_of_many_dumps, .timeout = 60)
{
	static const struct dump_decl_info d = {"function", "f", "checker", 0x10};
	struct dump_meta meta;
	char name[64], *out, *err;

	xt_meta(&meta, NULL, 10, 42, 42);
	for (uint32_t w = 0; w < 2000; w++) {
		struct dump_map m;
		char *path;

		snprintf(name, sizeof(name), "p.w%04u.xpd", w);
		path = xt_path(xt_dir, name);
		xt_create(&m, path, &meta, &d, 1, w);
		xt_record(&m, 0, 110 + w % 7, 3);
		xt_finish(&m, true);
		free(path);
	}
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, &out, &err),
		0, "%s", err);
	cr_expect_not_null(strstr(out, "\"workers\": 2000,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"evaluations\": 6000,\n      \"per_eval\": 100,"), "%s",
			   out);
	free(out);
	free(err);
}

Test(report, window_and_outside_in_the_header)
{
	static const struct dump_decl_info d = {"guard", "g", "checker", 0x10};
	char *path = xt_path(xt_dir, "w.xpd"), *out, *err;
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, 1, 5, 5);
	strcpy(meta.window, "search@checker");
	meta.flags = EXTPROF_DUMP_F_WINDOW;
	xt_create(&m, path, &meta, &d, 1, 0);
	xt_record(&m, 0, 11, 4);
	m.decls[0].outside = 7;
	xt_finish(&m, true);
	cr_assert_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(
		strstr(out, "window       search@checker: 7 evaluations outside it are left out"),
		"%s", out);
	cr_expect_not_null(strstr(out, "steps while the window was open"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, &out, &err),
		0);
	cr_expect_not_null(strstr(out, "\"window\": \"search@checker\","), "%s", out);
	cr_expect_not_null(strstr(out, "\"outside\": 7,"), "%s", out);
	free(out);
	free(err);
	free(path);
}

/* An image that ended by exec left whole counts: complete, even for --strict. */
Test(report, exec_ended_image_is_complete)
{
	static const struct dump_decl_info d = {"function", "f", "checker", 0x10};
	char *path = xt_path(xt_dir, "e.xpd"), *out, *err;
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, 1, 5, 5);
	xt_create(&m, path, &meta, &d, 1, 0);
	xt_record(&m, 0, 11, 4);
	m.hdr->flags |= EXTPROF_DUMP_F_EXEC;
	xt_finish(&m, false);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--strict", "--format", "json", xt_dir, NULL},
		    &out, &err),
		0, "%s", err);
	cr_expect_not_null(strstr(out, "\"complete\": true,"), "%s", out);
	free(out);
	free(err);
	free(path);
}

/*
 * The shape of a report of python3 with tsc, whose deltas move in steps of 26
 * while the shim saw two reads 1 apart: "eval" costs little per call and
 * took most of the run, "steady" costs the most per call, "cheap" reads a
 * step above its floor of 0 a call, the hook's own noise.  By default eval
 * comes first and cheap is not state-dependent; --sort cost puts steady first.
 */
static void tsc_run(void)
{
	static const struct dump_decl_info decls[] = {
		{"function", "eval", "python3", 0x1000},
		{"function", "steady", "python3", 0x2000},
		{"function", "cheap", "python3", 0x3000},
	};
	char *a = xt_path(xt_dir, "t.xpd");
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, "tsc", 1, 300, 0x300);
	xt_create(&m, a, &meta, decls, 3, 0);
	xt_record(&m, 0, 79, 50);
	xt_record(&m, 0, 5000000, 50);
	xt_record(&m, 1, 20001, 100);
	xt_record(&m, 1, 20027, 100);
	xt_record(&m, 2, 1, 40000);
	xt_record(&m, 2, 27, 50000);
	xt_record(&m, 2, 53, 10000);
	m.hdr->run_total = 500000000;
	xt_finish(&m, true);
	free(a);
}

Test(report, heavy_state_dependent_first_noise_not_flagged)
{
	char *out, *err, *json;

	tsc_run();
	cr_assert_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(strstr(out,
				  "resolution   1 ticks: the smallest step the counter was seen"
				  " to take; its deltas move in steps of 26 ticks\n"),
			   "%s", out);
	/* eval: cost 78 x 100 = 7,800, observed 78 x 50 + 4,999,999 x 50: 50.0 % of the run */
	cr_expect_not_null(strstr(out, "eval@python3            100        78"), "%s", out);
	cr_expect_not_null(strstr(out, "250,003,850      50.0%"), "%s", out);
	cr_expect_lt(strstr(out, "eval@"), strstr(out, "steady@"), "%s", out);
	cr_expect_lt(strstr(out, "steady@"), strstr(out, "cheap@"), "%s", out);
	/* cheap: 26 ticks a call above a floor of 0, within 2 steps: too-cheap alone */
	cr_expect_not_null(strstr(out, "cheap@python3       100,000         0"), "%s", out);
	cr_expect_null(strstr(strstr(out, "cheap@"), "state-dependent\n"), "%s", out);
	cr_expect_not_null(strstr(out, "rows: most first by observed where state-dependent, cost"
				       " elsewhere"),
			   "%s", out);
	free(out);
	free(err);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--sort", "cost", xt_dir, NULL}, &out, &err),
		0);
	cr_expect_lt(strstr(out, "steady@"), strstr(out, "eval@"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, &json, &err),
		0);
	cr_expect_not_null(strstr(json, "\"step\": 26,"), "%s", json);
	cr_expect_not_null(strstr(json, "\"observed_share\": 0.5000077"), "%s", json);
	free(json);
	free(err);
}
