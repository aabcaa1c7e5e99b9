// SPDX-License-Identifier: MIT
/*
 * What a user gets besides the commands: a manual page a command (rendered
 * by man and groff without a warning, naming every option the command's
 * --help names), and, from meson install, those pages, the bash completion
 * where bash-completion looks for it (completing a command, an option and
 * an option's value) and the licence.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

TestSuite(install, .timeout = 300);

#define MAX_COMMANDS 32

/* The commands "extprof --help" lists: into @cmds (malloc'd), their number. */
static size_t commands(char **cmds)
{
	const char *argv[] = {harness_path("EXTPROF_BIN"), "--help", NULL};
	struct run_result r;
	size_t n = 0;
	const char *p;

	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	p = strstr(r.out, "\ncommands:\n");
	cr_assert_not_null(p, "%s", r.out);
	for (p += 11; !strncmp(p, "  ", 2) && p[2] >= 'a' && p[2] <= 'z' && n < MAX_COMMANDS;) {
		size_t len = strcspn(p + 2, " ");

		cmds[n++] = strndup(p + 2, len);
		p = strchr(p, '\n') + 1;
	}
	harness_free(&r);
	cr_assert_geq(n, 9, "the commands: %zu", n);
	return n;
}

/*
 * The options "extprof @cmd --help" lists: on each line of its list (one
 * that starts with '-' after up to 4 spaces), until the description (two
 * spaces), each word that starts with '-' ("-H, --hook KIND", "--sort,
 * --stat, ..."), once each, into @opts; their number.
 */
static size_t help_options(const char *cmd, char **opts, size_t cap)
{
	const char *argv[] = {harness_path("EXTPROF_BIN"), cmd, "--help", NULL};
	struct run_result r;
	size_t n = 0;

	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "%s --help: %s", cmd, r.err);
	for (char *line = r.out, *next; line && *line; line = next) {
		char *p = line, *save = NULL, *word;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*p == ' ' && p - line < 4)
			p++;
		if (*p != '-')
			continue;
		if (strstr(p, "  "))
			*strstr(p, "  ") = '\0';
		for (word = strtok_r(p, ", ", &save); word; word = strtok_r(NULL, ", ", &save)) {
			size_t len = 0;
			bool seen = false;

			while (isalnum((unsigned char)word[len]) || word[len] == '-')
				len++;
			if (word[0] != '-' || len < 2)
				continue;
			word[len] = '\0';
			for (size_t i = 0; i < n; i++)
				seen |= !strcmp(opts[i], word);
			if (!seen && n < cap)
				opts[n++] = strdup(word);
		}
	}
	harness_free(&r);
	return n;
}

/* @page rendered by man, 200 columns wide (an option's line stays whole): malloc'd. */
static char *man_text(const char *page, bool warnings_too)
{
	const char *argv[] = {"man", "--warnings", "-l", page, NULL};
	const char *env[] = {"MANWIDTH=200", "MANPAGER=cat", "PAGER=cat",
			     "MAN_KEEP_FORMATTING=", NULL};
	struct run_result r;
	char *text;

	harness_run(argv, env, &r);
	cr_assert_eq(r.status, 0, "man -l %s: %s", page, r.err);
	if (warnings_too)
		cr_expect_str_eq(r.err, "", "man --warnings -l %s", page);
	text = r.out;
	r.out = NULL;
	harness_free(&r);
	return text;
}

/* @opt in @text as a word of its own ("--stat" in "--stat min", not in "--status"). */
static bool names_option(const char *text, const char *opt)
{
	size_t len = strlen(opt);

	for (const char *p = strstr(text, opt); p; p = strstr(p + 1, opt)) {
		char before = p == text ? ' ' : p[-1], after = p[len];

		if ((before == ' ' || before == ',' || before == '(' || before == '\n') &&
		    !isalnum((unsigned char)after) && after != '-')
			return true;
	}
	return false;
}

/* Each page renders with man and groff at 80 columns, with no warning. */
Test(install, man_pages_render_without_warnings)
{
	char *cmds[MAX_COMMANDS], *page;
	size_t n = commands(cmds);

	for (size_t i = 0; i <= n; i++) {
		const char *name = i < n ? cmds[i] : NULL;
		struct run_result r;

		cr_assert(asprintf(&page, "%s/docs/man/extprof%s%s.1",
				   harness_path("EXTPROF_SOURCE_ROOT"), name ? "-" : "",
				   name ? name : "") > 0);
		cr_assert_eq(access(page, R_OK), 0, "no page %s", page);
		{
			const char *argv[] = {"man", "--warnings", "-l", page, NULL};
			const char *env[] = {"MANWIDTH=80", "MANPAGER=cat", "PAGER=cat", NULL};

			harness_run(argv, env, &r);
			cr_expect_eq(r.status, 0, "man -l %s: %s", page, r.err);
			cr_expect_str_eq(r.err, "", "man --warnings -l %s", page);
			cr_expect(strstr(r.out, "NAME") && strstr(r.out, "SYNOPSIS") &&
					  strstr(r.out, "OPTIONS") && strstr(r.out, "SEE ALSO"),
				  "%s: %s", page, r.out);
			harness_free(&r);
		}
		{
			const char *argv[] = {"groff", "-ww", "-z", "-man", "-Tutf8", page, NULL};

			harness_run(argv, NULL, &r);
			cr_expect_eq(r.status, 0, "groff %s", page);
			cr_expect_str_eq(r.err, "", "groff -ww %s", page);
			harness_free(&r);
		}
		free(page);
	}
	for (size_t i = 0; i < n; i++)
		free(cmds[i]);
}

/* extprof-CMD(1) names every option of extprof CMD --help; extprof(1) names each page. */
Test(install, each_page_names_every_option_of_its_command)
{
	char *cmds[MAX_COMMANDS], *opts[128], *page, *text, *overview;
	size_t n = commands(cmds);

	cr_assert(asprintf(&page, "%s/docs/man/extprof.1", harness_path("EXTPROF_SOURCE_ROOT")) >
		  0);
	overview = man_text(page, true);
	free(page);
	for (size_t i = 0; i < n; i++) {
		size_t k = help_options(cmds[i], opts, 128);
		char see[64];

		cr_expect_geq(k, 2, "%s --help lists %zu options", cmds[i], k);
		cr_assert(asprintf(&page, "%s/docs/man/extprof-%s.1",
				   harness_path("EXTPROF_SOURCE_ROOT"), cmds[i]) > 0);
		text = man_text(page, true);
		for (size_t j = 0; j < k; j++) {
			cr_expect(names_option(text, opts[j]), "extprof-%s(1) does not name %s",
				  cmds[i], opts[j]);
			free(opts[j]);
		}
		snprintf(see, sizeof(see), "extprof-%s(1)", cmds[i]);
		cr_expect(strstr(overview, see), "extprof(1) does not name %s", see);
		free(text);
		free(page);
		free(cmds[i]);
	}
	free(overview);
}

/* `meson install --destdir` into a temporary directory, once for the tests below. */
static char *installed(void)
{
	char *dest = harness_tmpdir("install");
	const char *argv[] = {"meson",	   "install", "-C",	      harness_path("XT_BUILD_ROOT"),
			      "--destdir", dest,      "--no-rebuild", "--quiet",
			      NULL};
	struct run_result r;

	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "meson install: %s%s", r.out, r.err);
	harness_free(&r);
	return dest;
}

/* "@dest@prefix/@rel", malloc'd: a path under the install's prefix. */
static char *under(const char *dest, const char *rel)
{
	const char *prefix = harness_path("XT_PREFIX");
	char *p;

	cr_assert(asprintf(&p, "%s%s/%s", dest, prefix, rel) > 0);
	return p;
}

/* bash-completion's own directory for our prefix, or its default when it is not installed. */
static char *completions_dir(void)
{
	char *define, *dir;
	struct run_result r;

	cr_assert(asprintf(&define, "--define-variable=datadir=%s/%s", harness_path("XT_PREFIX"),
			   harness_path("XT_DATADIR")) > 0);
	{
		const char *argv[] = {"pkg-config", define, "--variable=completionsdir",
				      "bash-completion", NULL};

		harness_run(argv, NULL, &r);
	}
	if (r.status == 0 && r.out[0] == '/') {
		size_t len = strlen(harness_path("XT_PREFIX"));

		cr_assert(!strncmp(r.out, harness_path("XT_PREFIX"), len) && r.out[len] == '/',
			  "bash-completion's directory is not under the prefix: %s", r.out);
		dir = strndup(r.out + len + 1, strcspn(r.out, "\n") - len - 1);
	} else {
		cr_assert(asprintf(&dir, "%s/bash-completion/completions",
				   harness_path("XT_DATADIR")) > 0);
	}
	harness_free(&r);
	free(define);
	return dir;
}

/*
 * The completion sourced into bash: what `complete -p extprof` says, and
 * what _extprof offers for COMP_WORDS @words (the last one being
 * completed), one a line.
 */
static char *complete_words(const char *script, const char *words)
{
	char *cmd;
	struct run_result r;
	char *out;

	cr_assert(asprintf(&cmd,
			   "source '%s' || exit 9; complete -p extprof; COMP_WORDS=(%s); "
			   "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _extprof; "
			   "printf '[%%s]\\n' \"${COMPREPLY[@]}\"",
			   script, words) > 0);
	{
		const char *argv[] = {"bash", "--norc", "--noprofile", "-c", cmd, NULL};

		harness_run(argv, NULL, &r);
	}
	cr_assert_eq(r.status, 0, "bash: %s", r.err);
	cr_expect_str_eq(r.err, "", "%s", cmd);
	out = r.out;
	r.out = NULL;
	harness_free(&r);
	free(cmd);
	return out;
}

/*
 * meson install: the pages (rendering as the sources do), the completion
 * where bash-completion looks under the prefix, the licence, the command.
 */
Test(install, meson_install_puts_pages_completion_and_licence)
{
	char *dest = installed(), *cdir = completions_dir(), *rel, *path, *text;
	char *cmds[MAX_COMMANDS];
	size_t n = commands(cmds);
	struct stat st;

	path = under(dest, "bin/extprof");
	cr_expect(!stat(path, &st) && (st.st_mode & 0111), "%s", path);
	free(path);
	for (size_t i = 0; i <= n; i++) {
		cr_assert(asprintf(&rel, "%s/man1/extprof%s%s.1", harness_path("XT_MANDIR"),
				   i < n ? "-" : "", i < n ? cmds[i] : "") > 0);
		path = under(dest, rel);
		cr_expect_eq(access(path, R_OK), 0, "not installed: %s", path);
		if (!access(path, R_OK)) {
			text = man_text(path, true);
			cr_expect(strstr(text, "OPTIONS"), "%s", path);
			free(text);
		}
		free(path);
		free(rel);
	}
	cr_assert(asprintf(&rel, "%s/extprof", cdir) > 0);
	path = under(dest, rel);
	cr_expect_eq(access(path, R_OK), 0, "the completion is not in %s", path);
	if (!access(path, R_OK)) {
		text = complete_words(path, "extprof re");
		cr_expect(strstr(text, "-F _extprof extprof\n"), "%s", text);
		free(text);
	}
	free(path);
	free(rel);
	cr_assert(asprintf(&rel, "%s/doc/extprof/LICENSE", harness_path("XT_DATADIR")) > 0);
	path = under(dest, rel);
	{
		FILE *f = fopen(path, "r");
		char first[64] = "";

		cr_expect_not_null(f, "no licence at %s", path);
		if (f && fgets(first, sizeof(first), f))
			cr_expect_str_eq(first, "MIT License\n");
		if (f)
			fclose(f);
	}
	free(path);
	free(rel);
	for (size_t i = 0; i < n; i++)
		free(cmds[i]);
	free(cdir);
	harness_rmdir(dest);
}

/*
 * The completion completes a command, an option, an option's value (listed
 * in the command's help, or in the help of the command it refers to, as top's
 * --color and doubling's --counter do); after --, nothing.
 */
Test(install, bash_completion_completes_commands_options_values)
{
	char *script, *bin, *words, *out;
	static const char *const cases[][2] = {
		{"re", "[report]\n"},
		{"run --co", "[--color]\n[--counter]\n"},
		{"run --stat", "[--stat]\n[--status]\n"},
		{"report --format js", "[json]\n"},
		{"report --color=al", "[always]\n"},
		{"top --wa", "[--wait]\n"},
		{"top --color=n", "[never]\n"},
		{"run --counter ts", "[tsc]\n[tsc-unordered]\n"},
		{"doubling --counter st", "[steps]\n"},
		{"symbols --counter st", "[steps]\n"},
		{"doubling --format ''", "[text]\n[json]\n[csv]\n[html]\n"},
		{"run -- ls --co", "[]\n"},
	};

	cr_assert(asprintf(&script, "%s/completion/extprof", harness_path("EXTPROF_SOURCE_ROOT")) >
		  0);
	bin = (char *)harness_path("EXTPROF_BIN");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* COMP_WORDS as bash splits them: "--color=al" is "--color" "=" "al" */
		char *w = strdup(cases[i][0]), *eq = strchr(w, '=');

		if (eq)
			*eq = '\0';
		cr_assert(asprintf(&words, "'%s' %s%s%s", bin, w, eq ? " = " : "",
				   eq ? eq + 1 : "") > 0);
		out = complete_words(script, words);
		/* the first line is complete -p's */
		cr_expect_str_eq(strchr(out, '\n') + 1, cases[i][1], "extprof %s: %s", cases[i][0],
				 out);
		free(out);
		free(words);
		free(w);
	}
	free(script);
}
