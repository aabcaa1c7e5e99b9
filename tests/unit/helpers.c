// SPDX-License-Identifier: MIT
/* helpers: dump files, whole-file I/O and the extprof binary, for the tests. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

void xt_meta(struct dump_meta *m, const char *counter, uint64_t calibration, uint64_t pid,
	     uint64_t process_id)
{
	memset(m, 0, sizeof(*m));
	counter = counter ? counter : "var:steps";
	m->counter = !strncmp(counter, "var:", 4) ? EXTPROF_COUNTER_VAR
		     : !strcmp(counter, "tsc")	  ? EXTPROF_COUNTER_TSC
						  : EXTPROF_COUNTER_INSTRUCTIONS;
	m->counter_flags = EXTPROF_COUNTER_F_CALIBRATION_SETTLED;
	if (m->counter != EXTPROF_COUNTER_TSC)
		m->counter_flags |= EXTPROF_COUNTER_F_DETERMINISTIC;
	snprintf(m->counter_name, sizeof(m->counter_name), "%s", counter);
	snprintf(m->counter_unit, sizeof(m->counter_unit), "%s",
		 m->counter == EXTPROF_COUNTER_TSC   ? "ticks"
		 : m->counter == EXTPROF_COUNTER_VAR ? "steps"
						     : "instructions");
	m->calibration = calibration;
	m->resolution = 1;
	m->process_id = process_id;
	m->pid = pid;
	m->ppid = 1;
	m->start_ns = 1700000000000000000ll;
	strcpy(m->hostname, "testhost");
	strcpy(m->cpu_model, "Test CPU");
	strcpy(m->kernel, "Linux test");
	strcpy(m->exe_path, "/usr/bin/checker");
	m->build_id_size = 4;
	memcpy(m->build_id, "\xde\xad\xbe\xef", 4);
}

char *xt_tmpdir(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir;

	cr_assert(asprintf(&dir, "%s/xptest.XXXXXX", base) > 0);
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

char *xt_dir;

void xt_dir_init(void)
{
	xt_dir = xt_tmpdir();
}

void xt_dir_fini(void)
{
	xt_rmtree(xt_dir);
	free(xt_dir);
	xt_dir = NULL;
}

char *xt_path(const char *dir, const char *name)
{
	char *p;

	cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

void xt_create(struct dump_map *m, const char *path, const struct dump_meta *meta,
	       const struct dump_decl_info *decls, uint32_t n, uint32_t worker)
{
	int err = dump_create(m, path, meta, decls, n, worker);

	cr_assert_eq(err, 0, "dump_create %s: %s", path, strerror(-err));
}

/* The shim's rule, as far as a test needs it: hits within 2 units of the floor. */
void xt_record(struct dump_map *m, uint32_t decl, uint64_t delta, uint64_t times)
{
	struct extprof_dump_decl *d = &m->decls[decl];

	if (!times)
		return;
	if (d->floor == EXTPROF_FLOOR_NONE || delta + 2 < d->floor)
		d->floor_hits = 0;
	if (d->floor == EXTPROF_FLOOR_NONE || delta < d->floor)
		d->floor = delta;
	if (delta <= d->floor + 2)
		d->floor_hits += times;
	d->evaluations += times;
	d->sum += delta * times;
	if (delta > d->max)
		d->max = delta;
	cr_assert_eq(dump_take_row(m, decl), 0);
	dump_row_at(m, d->row)[extprof_hist_bucket(delta)] += times;
	m->hdr->run_total += delta * times * 2;
	m->hdr->threads = 1;
}

void xt_finish(struct dump_map *m, bool complete)
{
	if (complete) {
		int err = dump_write_compact(m, EXTPROF_DUMP_F_COMPLETE);

		cr_assert_eq(err, 0, "dump_write_compact: %s", strerror(-err));
	}
	dump_unmap(m);
}

void xt_sample_dump(const char *path, uint64_t pid, uint32_t n)
{
	static const char *const names[] = {"alpha", "beta", "gamma", "delta", "epsilon"};
	struct dump_decl_info decls[5];
	struct dump_meta meta;
	struct dump_map m;

	cr_assert_leq(n, 5);
	for (uint32_t i = 0; i < n; i++)
		decls[i] = (struct dump_decl_info){"function", names[i], "checker", 0x1000 + i};
	xt_meta(&meta, NULL, 5, pid, 0x1000 + pid);
	xt_create(&m, path, &meta, decls, n, 0);
	for (uint32_t i = 0; i < n; i++) {
		xt_record(&m, i, 105 + 10 * i, 3);
		xt_record(&m, i, 300, 1);
	}
	xt_finish(&m, true);
}

unsigned char *xt_hostile_good(const char *path, uint32_t slots, uint64_t delta,
			       void (*chains)(struct dump_map *m), size_t *size)
{
	static const struct dump_decl_info decls[] = {
		{"invariant", "quorum_agrees", "checker", 0x1130},
		{"guard", "can_vote", "checker", 0x1200},
	};
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, 3, 77, 0x77);
	meta.caller_slots = slots;
	meta.callers_depth = 1;
	xt_create(&m, path, &meta, decls, 2, 0);
	xt_record(&m, 0, delta, 4);
	xt_record(&m, 1, delta + 4900, 2);
	chains(&m);
	xt_finish(&m, true);
	return xt_slurp(path, size);
}

unsigned char *xt_memdup(const void *b, size_t size)
{
	unsigned char *copy = malloc(size);

	cr_assert_not_null(copy);
	memcpy(copy, b, size);
	return copy;
}

struct extprof_dump_header *xt_hdr(unsigned char *b)
{
	return (struct extprof_dump_header *)b;
}

struct extprof_dump_section *xt_section(unsigned char *b, uint32_t type)
{
	struct extprof_dump_section *s = (void *)(b + sizeof(struct extprof_dump_header));

	for (unsigned i = 0; i < xt_hdr(b)->nsections; i++)
		if (s[i].type == type)
			return &s[i];
	cr_assert_fail("no section %u", type);
	return NULL;
}

void *xt_slurp(const char *path, size_t *size)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0, "open %s", path);
	cr_assert_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	cr_assert_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*size = (size_t)st.st_size;
	return buf;
}

void xt_spit(const char *path, const void *buf, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert_geq(fd, 0, "open %s", path);
	cr_assert_eq(write(fd, buf, size), (ssize_t)size);
	close(fd);
}

static char *read_all(int fd)
{
	size_t n = 0, cap = 4096;
	char *s = malloc(cap);
	ssize_t k;

	lseek(fd, 0, SEEK_SET);
	while ((k = read(fd, s + n, cap - n - 1)) > 0) {
		n += (size_t)k;
		if (cap - n < 2)
			s = realloc(s, cap *= 2);
	}
	s[n] = '\0';
	close(fd);
	return s;
}

static int capture_fd(void)
{
	char name[] = "/tmp/xpcap.XXXXXX";
	int fd = mkstemp(name);

	cr_assert_geq(fd, 0);
	unlink(name);
	return fd;
}

int xt_run(const char *const *argv, const char *const *env, char **out, char **err)
{
	return xt_run_stdin(argv, env, -1, out, err);
}

int xt_run_stdin(const char *const *argv, const char *const *env, int in, char **out, char **err)
{
	const char *bin = getenv("EXTPROF_BIN");
	int ofd = capture_fd(), efd = capture_fd(), status;
	size_t n = 0;
	pid_t pid;

	cr_assert_not_null(bin, "EXTPROF_BIN is not set (run through meson test)");
	while (argv[n])
		n++;
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char **args = calloc(n + 1, sizeof(*args));

		for (size_t i = 1; i < n; i++)
			args[i] = (char *)argv[i];
		args[0] = (char *)bin;
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		if (in < 0)
			in = open("/dev/null", O_RDONLY);
		dup2(in, 0);
		dup2(ofd, 1);
		dup2(efd, 2);
		signal(SIGPIPE, SIG_DFL);
		execv(bin, args);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	*out = read_all(ofd);
	*err = read_all(efd);
	return status;
}

char *xt_fake_shim_env(void)
{
	const char *shim = getenv("EXTPROF_FAKE_SHIM");
	char *env;

	cr_assert_not_null(shim, "EXTPROF_FAKE_SHIM is not set (run through meson test)");
	cr_assert(asprintf(&env, "EXTPROF_SHIM=%s", shim) > 0);
	return env;
}

int xt_run_sh(const char *out_dir, const char *script, const char *const *extra,
	      const char *const *env, char **out, char **err)
{
	const char *argv[32] = {"x", "run", "-o", out_dir};
	size_t n = 4;

	for (size_t i = 0; extra && extra[i] && n < 27; i++)
		argv[n++] = extra[i];
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;
	return xt_run(argv, env, out, err);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void xt_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
