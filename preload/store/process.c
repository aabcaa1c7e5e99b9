// SPDX-License-Identifier: MIT
/*
 * process: what every dump says about the process that made it, so that
 * the analyzer can group workers into processes and refuse to compare
 * runs of different programs or machines: pid, a random process id (pids
 * are reused, hosts differ), times, host, CPU, kernel, executable and its
 * GNU build-id.
 */
#include <elf.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "elfsyms.h"
#include "core/state.h"
#include "store/process.h"

int64_t process_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void process_copy(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void process_read_cpu_model(char *dst, size_t size)
{
	char buf[8192], *p, *end;
	ssize_t n;
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);

	process_copy(dst, size, "unknown", 7);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strstr(buf, "model name");
	if (!p || !(p = strchr(p, ':')))
		return;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	end = strchr(p, '\n');
	process_copy(dst, size, p, end ? (size_t)(end - p) : strlen(p));
}

struct build_id_search {
	uint8_t *id;
	uint32_t *size;
};

/* The main program's NT_GNU_BUILD_ID note, from its loaded headers. */
static int process_find_build_id(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct build_id_search *s = arg;

	(void)sz;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4)) {
				*s->size = n->n_descsz > 32 ? 32 : n->n_descsz;
				memcpy(s->id, desc, *s->size);
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1; /* the first object is the main program: stop either way */
}

/* Identity of this process; called at start-up and again in a fork child. */
void process_fill_ids(struct dump_meta *meta)
{
	uint64_t id = 0;

	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != sizeof(id)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		id = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
		     ((uint64_t)getpid() << 40);
	}
	meta->process_id = id;
	meta->pid = (uint64_t)getpid();
	meta->ppid = (uint64_t)getppid();
	meta->start_ns = process_now_ns();
}

void process_fill_meta(struct dump_meta *meta)
{
	struct build_id_search s = {meta->build_id, &meta->build_id_size};
	struct utsname u;
	ssize_t n;

	process_fill_ids(meta);
	if (!uname(&u)) {
		char kernel[sizeof(u.sysname) + sizeof(u.release) + sizeof(u.version) + 3];
		size_t a = strlen(u.sysname), b = strlen(u.release), c = strlen(u.version);

		process_copy(meta->hostname, sizeof(meta->hostname), u.nodename,
			     strlen(u.nodename));
		memcpy(kernel, u.sysname, a);
		kernel[a] = ' ';
		memcpy(kernel + a + 1, u.release, b);
		kernel[a + 1 + b] = ' ';
		memcpy(kernel + a + 2 + b, u.version, c);
		process_copy(meta->kernel, sizeof(meta->kernel), kernel, a + b + c + 2);
	}
	process_read_cpu_model(meta->cpu_model, sizeof(meta->cpu_model));
	n = elfsym_exe_path(meta->exe_path, sizeof(meta->exe_path));
	meta->exe_path[n > 0 ? n : 0] = '\0';
	dl_iterate_phdr(process_find_build_id, &s);
}

/*
 * @src as a part of a file name: every byte but letters, digits, '.', '-',
 * '_' and '+' becomes '_' (a host name may hold "/.."), never empty.
 */
void process_safe_name(char *dst, size_t size, const char *src)
{
	size_t n = 0;

	for (; *src && n + 1 < size; src++) {
		char c = *src;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' || c == '+';

		dst[n++] = ok ? c : '_';
	}
	if (!n && size > 7)
		memcpy(dst, "unknown", n = 7);
	dst[n] = '\0';
}

/* mkdir with the mode meant, whatever the umask. */
static int process_mkdir(const char *path)
{
	if (mkdir(path, 0700) < 0)
		return errno == EEXIST ? 0 : -errno;
	return chmod(path, 0700) < 0 ? -errno : 0;
}

/*
 * EXTPROF_DIR: made 0700 (with its parents) when missing.  One that exists
 * must be a directory owned by the user (or root) and writable by nobody
 * else, as ssh asks of its files: in a directory others can write, another
 * user could delete a dump and plant a forged one.  @shared_ok
 * (EXTPROF_SHARED_DIR=1) accepts it all the same.  0, or -errno with the
 * reason in @why.
 */
int process_make_dir(const char *dir, bool shared_ok, const char **why)
{
	char path[4096];
	struct stat st;
	size_t len = strlen(dir);
	int err;

	*why = "";
	if (!len || len >= sizeof(path)) {
		*why = "the path is too long";
		return -ENAMETOOLONG;
	}
	memcpy(path, dir, len + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		err = process_mkdir(path);
		*p = '/';
		if (err)
			goto fail;
	}
	err = process_mkdir(path);
	if (err)
		goto fail;
	if (stat(path, &st) < 0) {
		err = -errno;
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = "exists and is not a directory";
		return -ENOTDIR;
	}
	if (!shared_ok && st.st_uid != geteuid() && st.st_uid != 0) {
		*why = "is another user's directory (EXTPROF_SHARED_DIR=1 accepts it)";
		return -EPERM;
	}
	if (!shared_ok && (st.st_mode & 022)) {
		*why = "can be written by other users (EXTPROF_SHARED_DIR=1 accepts it)";
		return -EPERM;
	}
	if (access(path, W_OK | X_OK) < 0) {
		err = -errno;
		goto fail;
	}
	return 0;
fail:
	*why = strerrordesc_np(-err) ? strerrordesc_np(-err) : "unknown error";
	return err;
}
