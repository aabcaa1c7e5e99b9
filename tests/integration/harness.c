// SPDX-License-Identifier: MIT
/* harness: run programs and the analyzer for the integration tests. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

extern char **environ;

const char *harness_path(const char *var)
{
	const char *v = getenv(var);

	cr_assert(v && *v, "%s is not set: run the tests with meson test", var);
	return v;
}

static char *harness_slurp(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t n;

	cr_assert(buf);
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert(buf);
		}
	}
	buf[len] = '\0';
	return buf;
}

static void harness_apply_env(const char *const env[])
{
	for (int i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char name[256];

		if (!eq || (size_t)(eq - env[i]) >= sizeof(name))
			continue;
		memcpy(name, env[i], (size_t)(eq - env[i]));
		name[eq - env[i]] = '\0';
		if (eq[1])
			setenv(name, eq + 1, 1);
		else
			unsetenv(name);
	}
}

/* In the child, before exec: what @o asks for, or exit 126 saying why. */
static void harness_child_setup(const struct run_opts *o)
{
	const char *what = NULL;

	if (!o)
		return;
	if (o->hostname && (unshare(CLONE_NEWUTS) || sethostname(o->hostname, strlen(o->hostname))))
		what = "hostname";
	if (!what && o->as_mb) {
		struct rlimit rl = {(rlim_t)o->as_mb << 20, (rlim_t)o->as_mb << 20};

		if (setrlimit(RLIMIT_AS, &rl))
			what = "RLIMIT_AS";
	}
	if (!what && o->cwd && chdir(o->cwd))
		what = "chdir";
	if (!what && o->uid > 0 &&
	    (setgroups(0, NULL) || setgid((gid_t)o->uid) || setuid((uid_t)o->uid)))
		what = "setuid";
	if (o->umask_set)
		umask((mode_t)o->umask);
	if (what) {
		fprintf(stderr, "harness: %s: %s\n", what, strerror(errno));
		_exit(126);
	}
}

/*
 * A child running @argv, its stdin /dev/null (or @o's file), its stdout @out
 * and stderr @err, with @env and @o applied; it exits 127 when it cannot exec.
 */
static pid_t harness_fork(const char *const argv[], const char *const env[],
			  const struct run_opts *o, int out, int err)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int in = open(o && o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY);

		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		harness_apply_env(env);
		harness_child_setup(o);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "harness: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* @r's status and signal from a wait status. */
static void harness_status(int status, struct run_result *r)
{
	if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		r->status = 128 + r->signal;
	} else {
		r->status = WEXITSTATUS(status);
	}
}

int harness_run(const char *const argv[], const char *const env[], struct run_result *r)
{
	return harness_run_with(argv, env, NULL, r);
}

int harness_run_with(const char *const argv[], const char *const env[], const struct run_opts *o,
		     struct run_result *r)
{
	FILE *out = tmpfile(), *err = tmpfile();
	unsigned waited_ms = 0;
	int status;
	pid_t pid;

	cr_assert(out && err);
	memset(r, 0, sizeof(*r));
	pid = harness_fork(argv, env, o, fileno(out), fileno(err));
	for (;;) {
		pid_t w = waitpid(pid, &status, o && o->timeout_s ? WNOHANG : 0);

		if (w == pid)
			break;
		cr_assert(w == 0 || errno == EINTR, "waitpid: %s", strerror(errno));
		if (w == 0 && waited_ms >= o->timeout_s * 1000u && !r->timed_out) {
			kill(pid, SIGKILL);
			r->timed_out = true;
		} else if (w == 0) {
			usleep(10000);
			waited_ms += 10;
		}
	}
	harness_status(status, r);
	r->out = harness_slurp(fileno(out));
	r->err = harness_slurp(fileno(err));
	fclose(out);
	fclose(err);
	return r->status;
}

void harness_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

char *harness_str(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	cr_assert(vasprintf(&s, fmt, ap) > 0);
	va_end(ap);
	return s;
}

char *harness_tmpdir(const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	cr_assert(asprintf(&dir, "%s/extprof-test-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", tag) > 0);
	cr_assert(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

static void harness_rm_tree(const char *path)
{
	struct stat st;
	DIR *d;

	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
		struct dirent *e;

		while ((e = readdir(d))) {
			char *child;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (asprintf(&child, "%s/%s", path, e->d_name) > 0) {
				harness_rm_tree(child);
				free(child);
			}
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

void harness_rmdir(char *dir)
{
	if (!dir)
		return;
	if (!getenv("EXTPROF_TEST_KEEP"))
		harness_rm_tree(dir);
	free(dir);
}

json_t *harness_json(const struct run_result *r, int status, const char *what)
{
	json_error_t jerr;
	json_t *root;

	if (status >= 0)
		cr_assert_eq(r->status, status, "%s: status %d: %s", what, r->status, r->err);
	root = json_loads(r->out, 0, &jerr);
	cr_assert(root, "%s: not JSON (%s at line %d): %.400s", what, jerr.text, jerr.line, r->out);
	return root;
}

json_t *harness_report(const char *dir, const char *const extra[])
{
	const char *argv[32] = {harness_path("EXTPROF_BIN"), "report", "--format", "json"};
	struct run_result r;
	json_t *root;
	int n = 4;

	for (int i = 0; extra && extra[i] && n < 30; i++)
		argv[n++] = extra[i];
	argv[n++] = dir;
	argv[n] = NULL;
	harness_run(argv, NULL, &r);
	root = harness_json(&r, 0, "extprof report");
	harness_free(&r);
	return root;
}

json_t *harness_decl(json_t *report, const char *name)
{
	json_t *decls = json_object_get(report, "declarations"), *d;
	size_t i;

	json_array_foreach(decls, i, d)
	{
		if (!strcmp(json_string_value(json_object_get(d, "name")), name))
			return d;
	}
	return NULL;
}

long long harness_int(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	cr_assert(json_is_integer(v), "JSON key %s is not an integer", key);
	return json_integer_value(v);
}

long long harness_truth(const char *err, const char *symbol)
{
	const char *p = err;
	size_t len = strlen(symbol);

	while ((p = strstr(p, "checker-truth: "))) {
		p += strlen("checker-truth: ");
		if (!strncmp(p, symbol, len) && p[len] == ' ')
			return atoll(p + len + 1);
	}
	return -1;
}

int harness_each_file(const char *dir, const char *suffix, harness_file_fn fn, void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t sl = strlen(suffix);
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l < sl || strcmp(e->d_name + l - sl, suffix))
			continue;
		n++;
		if (fn)
			fn(dir, e->d_name, arg);
	}
	closedir(d);
	return n;
}

int harness_count_files(const char *dir, const char *suffix)
{
	return harness_each_file(dir, suffix, NULL, NULL);
}

/* Append what the pipe holds; 0 at end of file. */
static ssize_t harness_fill(struct spawned *s)
{
	ssize_t n;

	if (s->cap - s->len < 1024) {
		s->cap = s->cap ? s->cap * 2 : 8192;
		s->buf = realloc(s->buf, s->cap);
		cr_assert(s->buf);
	}
	do
		n = read(s->out, s->buf + s->len, s->cap - s->len - 1);
	while (n < 0 && errno == EINTR);
	cr_assert(n >= 0, "read from the child: %s", strerror(errno));
	s->len += (size_t)n;
	s->buf[s->len] = '\0';
	return n;
}

void harness_spawn(const char *const argv[], const char *const env[], struct spawned *s)
{
	FILE *err = tmpfile();
	int fds[2];
	pid_t pid;

	cr_assert(err);
	memset(s, 0, sizeof(*s));
	cr_assert(pipe2(fds, O_CLOEXEC) == 0);
	pid = harness_fork(argv, env, NULL, fds[1], fileno(err));
	close(fds[1]);
	s->pid = pid;
	s->out = fds[0];
	s->err = err;
	s->cap = 8192;
	s->buf = calloc(1, s->cap);
	cr_assert(s->buf);
}

char *harness_read_line(struct spawned *s, int timeout_ms)
{
	for (;;) {
		char *nl = memchr(s->buf + s->pos, '\n', s->len - s->pos);
		struct pollfd p = {s->out, POLLIN, 0};

		if (nl) {
			char *line = strndup(s->buf + s->pos, (size_t)(nl - (s->buf + s->pos)));

			s->pos = (size_t)(nl - s->buf) + 1;
			return line;
		}
		if (poll(&p, 1, timeout_ms) <= 0 || harness_fill(s) == 0)
			return NULL;
	}
}

int harness_reap(struct spawned *s, struct run_result *r)
{
	int status;

	while (harness_fill(s) > 0)
		;
	close(s->out);
	while (waitpid(s->pid, &status, 0) < 0)
		cr_assert(errno == EINTR);
	memset(r, 0, sizeof(*r));
	harness_status(status, r);
	r->out = s->buf;
	r->err = harness_slurp(fileno((FILE *)s->err));
	fclose(s->err);
	s->buf = NULL;
	return r->status;
}

/* ---- the hooking matrix (issue 3) -------------------------------------- */

json_t *harness_report_try(const char *dir, const char *const extra[], char *why, size_t whylen)
{
	const char *argv[32] = {harness_path("EXTPROF_BIN"), "report", "--format", "json"};
	struct run_result r;
	json_error_t jerr;
	json_t *root = NULL;
	int n = 4;

	for (int i = 0; extra && extra[i] && n < 30; i++)
		argv[n++] = extra[i];
	if (dir)
		argv[n++] = dir;
	argv[n] = NULL;
	harness_run(argv, NULL, &r);
	if (r.status != 0)
		snprintf(why, whylen, "extprof report %s: status %d: %.300s", dir ? dir : "",
			 r.status, r.err);
	else if (!(root = json_loads(r.out, 0, &jerr)))
		snprintf(why, whylen, "report is not JSON (%s): %.300s", jerr.text, r.out);
	harness_free(&r);
	return root;
}

/* "EXE.HOST.PID.PROCID.wNNN.xpd": the pid, read from the right (HOST may hold dots). */
static long harness_dump_pid(const char *name)
{
	const char *end = name + strlen(name), *p;
	int dots = 0;

	if (strlen(name) < 4 || strcmp(end - 4, ".xpd"))
		return -1;
	for (p = end - 4; p > name; p--) {
		if (p[-1] == '.' && ++dots == 3)
			break;
	}
	return p > name ? strtol(p, NULL, 10) : -1;
}

struct harness_pids {
	long *pids;
	int n, max;
};

static void harness_add_pid(const char *dir, const char *name, void *arg)
{
	struct harness_pids *p = arg;
	long pid = harness_dump_pid(name);
	int k;

	(void)dir;
	if (pid < 0)
		return;
	for (k = 0; k < p->n && p->pids[k] != pid; k++)
		;
	if (k == p->n && p->n < p->max)
		p->pids[p->n++] = pid;
}

int harness_dump_pids(const char *dir, long *pids, int max)
{
	struct harness_pids p = {pids, 0, max};

	harness_each_file(dir, ".xpd", harness_add_pid, &p);
	return p.n;
}

/* The dumps of one process, as arguments for `extprof report`. */
struct harness_pid_files {
	long pid;
	const char *files[28];
	char *paths[28];
	int n;
};

static void harness_add_pid_file(const char *dir, const char *name, void *arg)
{
	struct harness_pid_files *f = arg;

	if (f->n >= 27 || harness_dump_pid(name) != f->pid)
		return;
	cr_assert(asprintf(&f->paths[f->n], "%s/%s", dir, name) > 0);
	f->files[f->n] = f->paths[f->n];
	f->n++;
}

json_t *harness_report_pid(const char *dir, long pid, char *why, size_t whylen)
{
	struct harness_pid_files f = {.pid = pid};
	json_t *root;

	if (harness_each_file(dir, "", harness_add_pid_file, &f) < 0) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	f.files[f.n] = NULL;
	if (!f.n) {
		snprintf(why, whylen, "no dump of pid %ld in %s", pid, dir);
		return NULL;
	}
	root = harness_report_try(NULL, f.files, why, whylen);
	for (int i = 0; i < f.n; i++)
		free(f.paths[i]);
	return root;
}

long long harness_tagged(const char *err, const char *tag, const char *symbol)
{
	char prefix[64];
	const char *p = err;
	size_t len = strlen(symbol), pl;

	snprintf(prefix, sizeof(prefix), "checker-%s: ", tag);
	pl = strlen(prefix);
	while ((p = strstr(p, prefix))) {
		if ((p == err || p[-1] == '\n') && !strncmp(p + pl, symbol, len) &&
		    p[pl + len] == ' ')
			return atoll(p + pl + len + 1);
		p += pl;
	}
	return -1;
}

long long harness_decl_int(json_t *report, const char *name, const char *key)
{
	json_t *d = report ? harness_decl(report, name) : NULL;
	json_t *v = d ? json_object_get(d, key) : NULL;

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

const char *harness_hook_line(const char *err)
{
	static char line[2048];
	const char *p = err ? strstr(err, "extprof: hooked ") : NULL;
	size_t n;

	if (!p)
		return "";
	n = strcspn(p, "\n");
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	memcpy(line, p, n);
	line[n] = '\0';
	return line;
}

/* the order of tests/targets/meson.build */
const struct matrix_cell matrix_cells[MATRIX_NCELLS] = {
	{"gcc-O0-pie-cet", "gcc", 0, true, true},
	{"gcc-O0-pie-nocet", "gcc", 0, true, false},
	{"gcc-O0-nopie-cet", "gcc", 0, false, true},
	{"gcc-O0-nopie-nocet", "gcc", 0, false, false},
	{"gcc-O2-pie-cet", "gcc", 2, true, true},
	{"gcc-O2-pie-nocet", "gcc", 2, true, false},
	{"gcc-O2-nopie-cet", "gcc", 2, false, true},
	{"gcc-O2-nopie-nocet", "gcc", 2, false, false},
	{"gcc-O3-pie-cet", "gcc", 3, true, true},
	{"gcc-O3-pie-nocet", "gcc", 3, true, false},
	{"gcc-O3-nopie-cet", "gcc", 3, false, true},
	{"gcc-O3-nopie-nocet", "gcc", 3, false, false},
	{"clang-O0-pie-cet", "clang", 0, true, true},
	{"clang-O0-pie-nocet", "clang", 0, true, false},
	{"clang-O0-nopie-cet", "clang", 0, false, true},
	{"clang-O0-nopie-nocet", "clang", 0, false, false},
	{"clang-O2-pie-cet", "clang", 2, true, true},
	{"clang-O2-pie-nocet", "clang", 2, true, false},
	{"clang-O2-nopie-cet", "clang", 2, false, true},
	{"clang-O2-nopie-nocet", "clang", 2, false, false},
	{"clang-O3-pie-cet", "clang", 3, true, true},
	{"clang-O3-pie-nocet", "clang", 3, true, false},
	{"clang-O3-nopie-cet", "clang", 3, false, true},
	{"clang-O3-nopie-nocet", "clang", 3, false, false},
};

bool matrix_cell_wanted(const struct matrix_cell *cell)
{
	const char *want = getenv("EXTPROF_MATRIX_CELLS");
	size_t n = strlen(cell->name);

	if (!want || !*want)
		return true;
	for (const char *p = want; (p = strstr(p, cell->name)); p += n) {
		if ((p == want || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

char *matrix_exe(const char *kase, const struct matrix_cell *cell)
{
	char *path;

	cr_assert(asprintf(&path, "%s/%s-%s", harness_path("EXTPROF_TARGETS"), kase, cell->name) >
		  0);
	cr_assert(access(path, X_OK) == 0, "%s: %s (is the matrix built?)", path, strerror(errno));
	return path;
}

char *matrix_tmpdir(const char *kase, const struct matrix_cell *cell)
{
	char tag[128];

	snprintf(tag, sizeof(tag), "%s-%s", kase, cell->name);
	return harness_tmpdir(tag);
}

void matrix_run(const char *const argv[], const char *hooks, const char *dir,
		const char *const env[], struct run_result *r)
{
	const char *all[32];
	char *preload = NULL, *hookv = NULL, *dirv = NULL, *counterv = NULL;
	/* tsc takes the stubs' fast path; ns their C path (meson's *_cpath tests) */
	const char *counter = getenv("EXTPROF_MATRIX_COUNTER");
	int n = 0;

	if (hooks) {
		cr_assert(asprintf(&preload, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
		cr_assert(asprintf(&hookv, "EXTPROF_HOOKS=%s", hooks) > 0);
		cr_assert(asprintf(&dirv, "EXTPROF_DIR=%s", dir) > 0);
		cr_assert(asprintf(&counterv, "EXTPROF_COUNTER=%s", counter ? counter : "tsc") > 0);
		all[n++] = preload;
		all[n++] = hookv;
		all[n++] = dirv;
		all[n++] = counterv;
		all[n++] = "EXTPROF_LOG=stderr";
	} else {
		all[n++] = "LD_PRELOAD=";
		all[n++] = "EXTPROF_HOOKS=";
		all[n++] = "EXTPROF_SPEC=";
		all[n++] = "EXTPROF_DIR=";
	}
	for (int i = 0; env && env[i] && n < 31; i++)
		all[n++] = env[i];
	all[n] = NULL;
	harness_run(argv, all, r);
	free(preload);
	free(hookv);
	free(dirv);
	free(counterv);
}

void matrix_summary(const struct matrix_tally *t)
{
	char failed[2048] = "";
	size_t used = 0;
	int bad = 0, cells = 0;

	for (int i = 0; i < MATRIX_NCELLS; i++) {
		cells += matrix_cell_wanted(&matrix_cells[i]);
		if (!t->failed[i])
			continue;
		bad++;
		used += (size_t)snprintf(failed + used,
					 used < sizeof(failed) ? sizeof(failed) - used : 0,
					 " %s(%d)", matrix_cells[i].name, t->failed[i]);
		if (used >= sizeof(failed))
			used = sizeof(failed) - 1;
	}
	fprintf(stderr, "matrix %s: %d/%d cells pass, %d checks%s%s\n", t->test, cells - bad, cells,
		t->checks, bad ? "; failed:" : "", failed);
}

void matrix_expect_same(struct matrix_tally *t, const struct matrix_cell *cell, const char *what,
			const struct run_result *plain, const struct run_result *hooked)
{
	MX_EXPECT(t, cell, hooked->status == plain->status,
		  "[%s %s] %s: exit status %d under the shim, %d without; stderr: %.600s", t->test,
		  cell->name, what, hooked->status, plain->status, hooked->err);
	MX_EXPECT(
		t, cell, !strcmp(hooked->out, plain->out),
		"[%s %s] %s: stdout differs under the shim:\n--- without\n%.400s\n--- with\n%.400s",
		t->test, cell->name, what, plain->out, hooked->out);
}

int matrix_expect_tagged(struct matrix_tally *t, const struct matrix_cell *cell, const char *what,
			 json_t *report, const char *err, const char *tag, const char *key)
{
	char prefix[64];
	const char *p = err;
	int checked = 0;

	snprintf(prefix, sizeof(prefix), "checker-%s: ", tag);
	while ((p = strstr(p, prefix))) {
		char symbol[128];
		long long want, got;

		p += strlen(prefix);
		if (sscanf(p, "%127s %lld", symbol, &want) != 2)
			continue;
		checked++;
		got = harness_decl_int(report, symbol, key);
		MX_EXPECT(t, cell, got == want,
			  "[%s %s] %s: %s %s is %lld in the report, %lld by the program's count",
			  t->test, cell->name, what, symbol, key, got, want);
	}
	return checked;
}

void matrix_pass_run(struct matrix_tally *t, const struct matrix_cell *cell,
		     const struct matrix_case *k, const char *what, struct matrix_pass *p)
{
	const char *argv[16] = {NULL};
	char why[512], line[64];
	int n = 1, truths;

	memset(p, 0, sizeof(*p));
	p->what = what;
	p->exe = matrix_exe(k->kase, cell);
	p->dir = matrix_tmpdir(k->kase, cell);
	argv[0] = p->exe;
	for (int i = 0; k->args && k->args[i] && n < 15; i++)
		argv[n++] = k->args[i];
	matrix_run(argv, NULL, NULL, k->env, &p->plain);
	matrix_run(argv, k->hooks, p->dir, k->env, &p->hooked);
	if (k->status >= 0)
		MX_EXPECT(
			t, cell, p->plain.status == k->status,
			"[%s %s] %s: the target fails by itself: status %d, want %d: %.300s %.300s",
			t->test, cell->name, what, p->plain.status, k->status, p->plain.out,
			p->plain.err);
	matrix_expect_same(t, cell, what, &p->plain, &p->hooked);
	if (k->hooked) {
		snprintf(line, sizeof(line), "extprof: hooked %d/%d", k->hooked, k->hooked);
		MX_EXPECT(t, cell, !strcmp(harness_hook_line(p->hooked.err), line),
			  "[%s %s] %s: want \"%s\", the shim said: %s", t->test, cell->name, what,
			  line, p->hooked.err);
	}
	if (k->no_report)
		return;
	p->report = harness_report_try(p->dir, NULL, why, sizeof(why));
	MX_EXPECT(t, cell, p->report, "[%s %s] %s: %s (shim: %.300s)", t->test, cell->name, what,
		  why, p->hooked.err);
	if (k->truths >= 0) {
		truths = matrix_expect_tagged(t, cell, what, p->report, p->hooked.err, "truth",
					      "evaluations");
		if (k->truths)
			MX_EXPECT(t, cell, truths == k->truths,
				  "[%s %s] %s: %d checker-truth lines, want %d: %s", t->test,
				  cell->name, what, truths, k->truths, p->hooked.err);
	}
	if (k->abandoned)
		matrix_expect_tagged(t, cell, what, p->report, p->hooked.err, "abandoned",
				     "abandoned");
}

void matrix_pass_free(struct matrix_pass *p)
{
	json_decref(p->report);
	harness_free(&p->plain);
	harness_free(&p->hooked);
	harness_rmdir(p->dir);
	free(p->exe);
	memset(p, 0, sizeof(*p));
}

void matrix_run_cells(const char *test, const struct matrix_case *k, matrix_check_fn *check,
		      void *arg)
{
	char name[128];
	struct matrix_tally t = {.test = test};

	if (!test) {
		snprintf(name, sizeof(name), "%s %s", k->kase, k->args ? k->args[0] : "");
		t.test = name;
	}

	MATRIX_FOR_EACH_CELL(c)
	{
		struct matrix_pass p;

		matrix_pass_run(&t, c, k, "run", &p);
		if (check)
			check(&t, c, &p, arg);
		matrix_pass_free(&p);
	}
	matrix_summary(&t);
}
