// SPDX-License-Identifier: MIT
/*
 * doubling_run: run the program at every size under the shim.  Each run
 * gets a fresh dump directory BASE/nN-rK (warmups BASE/warmup-K) prepared
 * as "extprof run" prepares its own, and the same environment and child
 * handling; the program's stdout and stderr go to BASE/nN-rK.out and .err,
 * so that they neither mix with the report nor scroll the progress away.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "doubling/doubling_progress.h"
#include "doubling/doubling_run.h"

/* The tail of a failed run's stderr we show; the whole of it is in its file. */
#define ERR_SHOWN (32 * 1024)

struct runner {
	const struct xp_dbl_opts *o;
	struct xp_dbl_ran *out;
	char *shim;
	struct xp_dbl_progress progress;
	bool shim_said; /* the shim's lines of the first run were shown */
};

char **xp_dbl_argv(char *const *argv, uint64_t n)
{
	char num[32], **v;
	size_t argc = 0;

	while (argv[argc])
		argc++;
	v = calloc(argc + 1, sizeof(*v));
	if (!v)
		return NULL;
	snprintf(num, sizeof(num), "%" PRIu64, n);
	for (size_t i = 0; i < argc; i++) {
		const char *s = argv[i], *p;
		size_t len = 0, nlen = strlen(num);
		char *d;

		for (p = s; (p = strstr(p, "{N}")); p += 3)
			len += nlen - 3;
		v[i] = malloc(strlen(s) + len + 1);
		if (!v[i]) {
			xp_dbl_argv_free(v);
			return NULL;
		}
		for (d = v[i]; *s;) {
			if (!strncmp(s, "{N}", 3)) {
				memcpy(d, num, nlen);
				d += nlen;
				s += 3;
			} else {
				*d++ = *s++;
			}
		}
		*d = '\0';
	}
	return v;
}

void xp_dbl_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A new directory, or an empty one of the user's: nothing of theirs is touched. */
static int base_make(const char *want, char **out, struct xp_err *e)
{
	char tmpl[] = XP_DBL_BASE_TEMPLATE;
	struct dirent *de;
	DIR *dir;
	int err = 0;

	if (!want) {
		if (!mkdtemp(tmpl))
			return xp_err_set(e, -errno, "%s: cannot create: %s", tmpl,
					  strerror(errno));
		want = tmpl;
	} else if (mkdir(want, 0700) < 0) {
		if (errno != EEXIST)
			return xp_err_set(e, -errno, "-d %s: cannot create: %s", want,
					  strerror(errno));
		dir = opendir(want);
		if (!dir)
			return xp_err_set(e, -errno, "-d %s: %s", want, strerror(errno));
		while (!err && (de = readdir(dir)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				err = xp_err_set(e, -EEXIST,
						 "-d %s: holds '%s'; the doubling test writes only "
						 "into a new or empty directory",
						 want, de->d_name);
		closedir(dir);
		if (!err && access(want, W_OK | X_OK) < 0)
			err = xp_err_set(e, -errno, "-d %s: not writable: %s", want,
					 strerror(errno));
		if (err)
			return err;
	}
	*out = strdup(want);
	return *out ? 0 : xp_err_set(e, -ENOMEM, "out of memory");
}

/* Point @fd at a new file @path; its old self is kept in *@saved. */
static int redirect(int fd, const char *path, int *saved, struct xp_err *e)
{
	int f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (f < 0)
		return xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
	*saved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (*saved < 0 || dup2(f, fd) < 0) {
		int err = -errno;

		close(f);
		if (*saved >= 0)
			close(*saved);
		return xp_err_set(e, err, "%s: %s", path, strerror(-err));
	}
	close(f);
	return 0;
}

static void restore(int fd, int saved)
{
	dup2(saved, fd);
	close(saved);
}

/* Copy the tail of file @path to stderr; with @only_ours, only the shim's lines. */
static void show_file(const char *path, bool only_ours)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	long size;

	if (!f)
		return;
	if (!only_ours && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > ERR_SHOWN) {
		fprintf(stderr, "[... the first %ld bytes are in %s]\n", size - ERR_SHOWN, path);
		fseek(f, size - ERR_SHOWN, SEEK_SET);
	} else {
		rewind(f);
	}
	while (fgets(line, sizeof(line), f))
		if (!only_ours || !strncmp(line, "extprof:", 8))
			fputs(line, stderr);
	fclose(f);
}

/* The child with its stdout and stderr in BASE/NAME.out and .err. */
static int run_child(struct runner *r, char **argv, const char *stem, int *status, double *secs,
		     struct xp_err *e)
{
	char *out = NULL, *err_path = NULL;
	int so = -1, se = -1, err;

	if (asprintf(&out, "%s.out", stem) < 0 || asprintf(&err_path, "%s.err", stem) < 0) {
		free(out);
		return xp_err_set(e, -ENOMEM, "out of memory");
	}
	fflush(NULL);
	err = redirect(STDOUT_FILENO, out, &so, e);
	if (!err) {
		err = redirect(STDERR_FILENO, err_path, &se, e);
		if (err)
			restore(STDOUT_FILENO, so);
	}
	if (!err) {
		*secs = now();
		err = xp_run_child(argv, r->o->run.no_aslr, status, e);
		*secs = now() - *secs;
		restore(STDERR_FILENO, se);
		restore(STDOUT_FILENO, so);
	}
	free(out);
	free(err_path);
	return err;
}

static int say_failed(struct runner *r, const char *what, uint64_t n, const char *err_path,
		      int status)
{
	int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);

	xp_dbl_progress_clear(&r->progress);
	if (WIFSIGNALED(status))
		fprintf(stderr,
			"extprof: doubling: %s at N=%" PRIu64 ": %s was killed by signal %d (%s)",
			what, n, r->o->run.argv[0], WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		fprintf(stderr, "extprof: doubling: %s at N=%" PRIu64 ": %s exited with status %d",
			what, n, r->o->run.argv[0], code);
	fprintf(stderr, "; the test stops.  Its stderr (%s):\n", err_path);
	show_file(err_path, false);
	fprintf(stderr, "extprof: doubling: the dumps so far are in %s\n", r->out->base);
	return code;
}

/* One run in BASE/@name: 0, the program's failing status (> 0), or <0 with @e set. */
static int run_one(struct runner *r, const char *what, uint64_t n, const char *name, double *secs,
		   struct xp_err *e)
{
	struct xp_names before = {0}, fresh = {0};
	char *stem = NULL, *abs = NULL, *err_path = NULL, **argv = NULL;
	int status = 0, err;

	if (asprintf(&stem, "%s/%s", r->out->base, name) < 0)
		return xp_err_set(e, -ENOMEM, "out of memory");
	err = mkdir(stem, 0700) < 0 ? xp_err_set(e, -errno, "%s: %s", stem, strerror(errno)) : 0;
	if (!err)
		err = xp_run_dir_prepare(stem, &abs, &before, e);
	if (!err)
		err = xp_run_set_env(&r->o->run, r->shim, abs, e);
	if (!err && !(argv = xp_dbl_argv(r->o->run.argv, n)))
		err = xp_err_set(e, -ENOMEM, "out of memory");
	if (!err)
		err = run_child(r, argv, stem, &status, secs, e);
	if (!err && asprintf(&err_path, "%s.err", stem) < 0)
		err = xp_err_set(e, -ENOMEM, "out of memory");
	if (!err && (WIFSIGNALED(status) || WEXITSTATUS(status))) {
		err = say_failed(r, what, n, err_path, status);
	} else if (!err && !r->shim_said) {
		/* what the shim hooked or refused: once, it is the same at every size */
		xp_dbl_progress_clear(&r->progress);
		show_file(err_path, true);
	}
	r->shim_said = true;
	if (!err)
		err = xp_run_dir_new(stem, &before, &fresh, e);
	if (!err && !fresh.n) {
		err = xp_err_set(e, -ENOENT,
				 "doubling: %s at N=%" PRIu64
				 " left no dumps in %s (nothing hooked "
				 "was called, or the shim was not loaded; its stderr is in %s)",
				 what, n, stem, err_path);
	}
	xp_names_free(&fresh);
	xp_names_free(&before);
	xp_dbl_argv_free(argv);
	free(abs);
	free(err_path);
	free(stem);
	return err;
}

static int add_input(struct xp_dbl_ran *out, uint64_t n, const char *name, double secs)
{
	struct xp_dbl_input *in = realloc(out->inputs, (out->ninputs + 1) * sizeof(*in));

	if (!in)
		return -ENOMEM;
	out->inputs = in;
	in += out->ninputs;
	in->n = n;
	in->seconds = secs;
	if (asprintf(&in->dir, "%s/%s", out->base, name) < 0)
		return -ENOMEM;
	out->ninputs++;
	return 0;
}

/* By size, stably: rounds append each size once, so repeats stay in order. */
static void inputs_sort(struct xp_dbl_input *in, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct xp_dbl_input x = in[i];
		size_t j = i;

		for (; j > 0 && in[j - 1].n > x.n; j--)
			in[j] = in[j - 1];
		in[j] = x;
	}
}

/*
 * The warmup, then K rounds of every size in increasing order: a slow spell
 * of the machine then lifts one repeat of several sizes, which the floor
 * over repeats sets aside, instead of every repeat of one size, which would
 * bend its ratios.
 */
static int run_all(struct runner *r, struct xp_err *e)
{
	const struct xp_dbl_opts *o = r->o;
	size_t top = o->nsizes; /* sizes[0..top) still run */
	char name[64];
	double secs;
	int err = 0;

	for (unsigned k = 1; k <= o->warmup && !err; k++) {
		xp_dbl_progress_show(&r->progress, &(struct xp_dbl_at){true, k, 0, top});
		snprintf(name, sizeof(name), "warmup-%u", k);
		err = run_one(r, "warmup", o->sizes[0], name, &secs, e);
		if (!err)
			xp_dbl_progress_done(&r->progress, 0, secs);
	}
	for (unsigned k = 1; k <= o->repeat && !err; k++) {
		for (size_t i = 0; i < top && !err; i++) {
			xp_dbl_progress_show(&r->progress, &(struct xp_dbl_at){false, k, i, top});
			snprintf(name, sizeof(name), "n%" PRIu64 "-r%u", o->sizes[i], k);
			err = run_one(r, "run", o->sizes[i], name, &secs, e);
			if (!err)
				xp_dbl_progress_done(&r->progress, i, secs);
			if (!err && add_input(r->out, o->sizes[i], name, secs))
				err = xp_err_set(e, -ENOMEM, "out of memory");
			if (!err && o->timeout > 0 && secs > o->timeout && !r->out->stopped) {
				/* as Alnoms stops doubling: this size stays, no larger one runs */
				r->out->stopped = true;
				r->out->stopped_at = o->sizes[i];
				r->out->stopped_seconds = secs;
				top = i; /* nor this one again */
			}
		}
	}
	xp_dbl_progress_clear(&r->progress);
	inputs_sort(r->out->inputs, r->out->ninputs);
	return err;
}

static bool has_placeholder(char *const *argv)
{
	for (size_t i = 0; argv[i]; i++)
		if (strstr(argv[i], "{N}"))
			return true;
	return false;
}

int xp_dbl_run(const struct xp_dbl_opts *o, struct xp_dbl_ran *out)
{
	struct runner r = {.o = o, .out = out};
	struct xp_err e = {""};
	int err;

	memset(out, 0, sizeof(*out));
	if (xp_dbl_progress_init(&r.progress, o->sizes, o->nsizes, o->warmup, o->repeat,
				 o->timeout)) {
		fputs("extprof: out of memory\n", stderr);
		return -ENOMEM;
	}
	if (!has_placeholder(o->run.argv))
		xp_warn("doubling: no {N} in the program's arguments: every size runs the same "
			"command");
	err = xp_run_find_shim(&r.shim, &e);
	if (!err)
		err = base_make(o->base, &out->base, &e);
	if (!err)
		err = run_all(&r, &e);
	free(r.shim);
	xp_dbl_progress_free(&r.progress);
	if (err < 0)
		xp_err_print(&e);
	return err;
}

void xp_dbl_ran_free(struct xp_dbl_ran *r)
{
	xp_dbl_inputs_free(r->inputs, r->ninputs);
	free(r->base);
	memset(r, 0, sizeof(*r));
}
