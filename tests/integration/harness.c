// SPDX-License-Identifier: MIT
/* harness: run programs and the analyzer for the integration tests. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int harness_run(const char *const argv[], const char *const env[], struct run_result *r)
{
	FILE *out = tmpfile(), *err = tmpfile();
	int status;
	pid_t pid;

	cr_assert(out && err);
	memset(r, 0, sizeof(*r));
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		harness_apply_env(env);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "harness: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		cr_assert(errno == EINTR);
	if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		r->status = 128 + r->signal;
	} else {
		r->status = WEXITSTATUS(status);
	}
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

json_t *harness_report(const char *dir, const char *const extra[])
{
	const char *argv[32] = {harness_path("EXTPROF_BIN"), "report", "--format", "json"};
	struct run_result r;
	json_error_t jerr;
	json_t *root;
	int n = 4;

	for (int i = 0; extra && extra[i] && n < 30; i++)
		argv[n++] = extra[i];
	argv[n++] = dir;
	argv[n] = NULL;
	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "extprof report %s: status %d: %s", dir, r.status, r.err);
	root = json_loads(r.out, 0, &jerr);
	cr_assert(root, "report is not JSON (%s at line %d): %s", jerr.text, jerr.line, r.out);
	harness_free(&r);
	return root;
}

json_t *harness_decl(json_t *report, const char *name)
{
	json_t *decls = json_object_get(report, "declarations"), *d;
	size_t i;

	json_array_foreach(decls, i, d) {
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

int harness_count_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t sl = strlen(suffix);
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		n += l >= sl && !strcmp(e->d_name + l - sl, suffix);
	}
	closedir(d);
	return n;
}
