// SPDX-License-Identifier: MIT
/*
 * log: every message the shim has for the user is one line starting
 * "extprof: ", written with a single write(2) so that lines from several
 * threads or processes never interleave.  The line is formatted here, into
 * a stack buffer, by a small formatter of our own: vsnprintf may allocate
 * and strerror may load a message catalogue, and a line can be said inside
 * a signal handler that interrupted malloc.  Every value a line echoes (a
 * variable, a path, a symbol) is escaped to printable ASCII here, so that
 * no value can break a line in two or drive a terminal.
 *
 * EXTPROF_LOG=FILE: the file's descriptor is moved high, out of the range a
 * program uses, close-on-exec, and checked before each write: a daemon that
 * closes every descriptor and opens a data file may have been given our
 * number; the line then goes to the file opened again by its path (made
 * absolute at start-up), never into the program's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/sys.h"

#define LOG_LINE_MAX 1024
#define LOG_HELD_MAX 8192

static int log_fd = STDERR_FILENO;
static bool log_said[LOG_ONCE_MAX];
static log_sink_fn log_sink;

void log_set_sink(log_sink_fn sink)
{
	log_sink = sink;
	for (int i = 0; i < LOG_ONCE_MAX; i++)
		log_said[i] = false;
}

/* EXTPROF_LOG=FILE: what the descriptor must still be, and where to find it again */
static bool log_is_file;
static char log_path[4096];
static dev_t log_dev;
static ino_t log_ino;
static int log_reopening;

static bool log_holding;
static bool (*log_say_now)(void);
static char log_held[LOG_HELD_MAX];
static size_t log_held_len;

const char *log_strerror(int err)
{
	const char *s = strerrordesc_np(err);

	return s ? s : "unknown error";
}

const char *log_strerror_limit(int err, char *buf, size_t size)
{
	static const struct {
		int resource;
		const char *name;
	} limits[] = {
		{RLIMIT_AS, "the address-space limit (RLIMIT_AS, ulimit -v)"},
		{RLIMIT_DATA, "the data limit (RLIMIT_DATA, ulimit -d)"},
	};
	struct rlimit rl;
	/*
	 * Nowhere to say it (EXTPROF_LOG=off, or silenced under a seccomp filter,
	 * which may kill the process for getrlimit's system call): no limit looked up.
	 */
	bool quiet = __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE) < 0 && !log_sink;

	for (size_t i = 0; err == ENOMEM && !quiet && i < sizeof(limits) / sizeof(limits[0]); i++) {
		if (!getrlimit(limits[i].resource, &rl) && rl.rlim_cur != RLIM_INFINITY) {
			log_format(buf, size, "%s: %s is %llu MiB", log_strerror(err),
				   limits[i].name, (unsigned long long)(rl.rlim_cur >> 20));
			return buf;
		}
	}
	log_format(buf, size, "%s", log_strerror(err));
	return buf;
}

/* ---- the formatter ---------------------------------------------------- */

struct log_out {
	char *buf;
	size_t size; /* room, the NUL included */
	size_t len;
};

static void out_char(struct log_out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len++] = c;
}

static void out_str(struct log_out *o, const char *s, bool escape)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!escape || (c >= 0x20 && c < 0x7f)) {
			out_char(o, (char)c);
			continue;
		}
		out_char(o, '\\');
		out_char(o, 'x');
		out_char(o, hex[c >> 4]);
		out_char(o, hex[c & 15]);
	}
}

static void out_unsigned(struct log_out *o, unsigned long long v, unsigned base, int width)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	for (; width > n; width--)
		out_char(o, '0');
	while (n)
		out_char(o, digits[--n]);
}

size_t log_vformat(char *buf, size_t size, bool escape, const char *fmt, va_list ap)
{
	struct log_out o = {buf, size, 0};

	if (!size)
		return 0;
	for (const char *p = fmt; *p; p++) {
		int longs = 0, width = 0;
		bool size_t_arg = false;
		unsigned long long u;
		long long s;

		if (*p != '%') {
			out_char(&o, *p);
			continue;
		}
		p++;
		/* "%016llx", "%03u": zeros to a width, for numbers */
		if (*p == '0')
			while (*p >= '0' && *p <= '9')
				width = width * 10 + (*p++ - '0');
		while (*p == 'l' || *p == 'h' || *p == 'z') {
			longs += *p == 'l';
			size_t_arg |= *p == 'z';
			p++;
		}
		switch (*p) {
		case 's': {
			const char *str = va_arg(ap, const char *);

			out_str(&o, str ? str : "(null)", escape);
			break;
		}
		case 'c':
			out_char(&o, (char)va_arg(ap, int));
			break;
		case 'd':
		case 'i':
			s = size_t_arg	 ? (long long)va_arg(ap, ssize_t)
			    : longs >= 2 ? va_arg(ap, long long)
			    : longs	 ? va_arg(ap, long)
					 : va_arg(ap, int);
			if (s < 0)
				out_char(&o, '-');
			out_unsigned(&o,
				     s < 0 ? 0ull - (unsigned long long)s : (unsigned long long)s,
				     10, width);
			break;
		case 'u':
		case 'x':
			u = size_t_arg	 ? va_arg(ap, size_t)
			    : longs >= 2 ? va_arg(ap, unsigned long long)
			    : longs	 ? va_arg(ap, unsigned long)
					 : va_arg(ap, unsigned int);
			out_unsigned(&o, u, *p == 'x' ? 16 : 10, width);
			break;
		case '%':
			out_char(&o, '%');
			break;
		default:
			/* not ours to format (the format attribute lets it through) */
			out_char(&o, '%');
			if (!*p)
				p--;
			else
				out_char(&o, *p);
			break;
		}
	}
	buf[o.len] = '\0';
	return o.len;
}

size_t log_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = log_vformat(buf, size, false, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- where lines go --------------------------------------------------- */

/*
 * Above the descriptors a program uses: half its limit, at most 1000 (the
 * kernel's table grows with the highest descriptor open).
 */
static int log_move_high(int fd)
{
	struct rlimit rl;
	int floor = 1000, high;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 2 < (rlim_t)floor)
		floor = (int)(rl.rlim_cur / 2);
	if (fd >= floor)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	if (high < 0)
		return fd;
	sys_close(fd);
	return high;
}

/*
 * Open the log file: appended to, never through a symbolic link, never a
 * FIFO or a socket (opening one blocks, or writes into somebody's pipe).
 */
static int log_open(const char *path, const char **why)
{
	struct stat st;
	int fd;

	if (!stat(path, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		*why = S_ISFIFO(st.st_mode) ? "is a FIFO" : "is a socket";
		return -EINVAL;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		*why = "is a directory";
		return -EISDIR;
	}
	fd = sys_open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
		      0600);
	if (fd < 0) {
		*why = log_strerror(-fd);
		return fd;
	}
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
		sys_close(fd);
		*why = "is not a regular file";
		return -EINVAL;
	}
	fd = log_move_high(fd);
	log_dev = st.st_dev;
	log_ino = st.st_ino;
	return fd;
}

int log_setup(const char *spec, const char **why)
{
	size_t n = 0;
	int fd;

	*why = "";
	if (!spec || !*spec || !strcmp(spec, "stderr"))
		return 0;
	if (!strcmp(spec, "off")) {
		log_fd = -1;
		return 0;
	}
	/* absolute now: the program may chdir before a later line */
	if (spec[0] != '/') {
		if (!getcwd(log_path, sizeof(log_path) - 1)) {
			*why = log_strerror(errno);
			return -errno;
		}
		n = strlen(log_path);
		if (n && log_path[n - 1] != '/')
			log_path[n++] = '/';
	}
	if (n + strlen(spec) >= sizeof(log_path)) {
		*why = "the path is too long";
		return -ENAMETOOLONG;
	}
	strcpy(log_path + n, spec);
	fd = log_open(log_path, why);
	if (fd < 0)
		return fd;
	log_fd = fd;
	log_is_file = true;
	return 0;
}

/*
 * Still our file?  If the program closed the descriptor (and maybe was
 * given its number again), open the file again; no line is written where
 * the program's own data may be.  0 when @n bytes may be written.
 */
static int log_check_file(size_t n)
{
	struct rlimit rl;
	struct stat st;
	const char *why;
	int fd;

	if (fstat(log_fd, &st) < 0 || st.st_dev != log_dev || st.st_ino != log_ino) {
		/* one thread at a time opens it again; the others drop their line */
		if (__atomic_exchange_n(&log_reopening, 1, __ATOMIC_ACQUIRE))
			return -EBUSY;
		fd = log_open(log_path, &why);
		if (fd >= 0)
			__atomic_store_n(&log_fd, fd, __ATOMIC_RELEASE);
		__atomic_store_n(&log_reopening, 0, __ATOMIC_RELEASE);
		if (fd < 0 || fstat(fd, &st) < 0)
			return -EBADF;
	}
	/* beyond RLIMIT_FSIZE a write raises SIGXFSZ, which kills by default */
	if (S_ISREG(st.st_mode) && !getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (uint64_t)st.st_size + n > (uint64_t)rl.rlim_cur)
		return -EFBIG;
	return 0;
}

void log_silence(void)
{
	__atomic_store_n(&log_fd, -1, __ATOMIC_RELEASE);
	log_is_file = false;
}

static void log_write(const char *buf, size_t n)
{
	if (log_fd < 0)
		return;
	if (log_is_file && log_check_file(n))
		return;
	/* raw: no cancellation point, errno untouched; nowhere left to say a failure */
	sys_write(log_fd, buf, n);
}

static void log_vmsg(const char *fmt, va_list ap)
{
	char buf[LOG_LINE_MAX];
	size_t n = sizeof("extprof: ") - 1;
	int saved = errno;

	if (log_fd < 0 && !log_sink)
		return;
	memcpy(buf, "extprof: ", n);
	n += log_vformat(buf + n, sizeof(buf) - n - 1, true, fmt, ap);
	buf[n++] = '\n';
	/* more than the room held: decide now rather than lose lines */
	if (log_holding && log_held_len + n > sizeof(log_held))
		log_release(log_say_now && log_say_now());
	if (log_sink) {
		log_sink(buf, n);
	} else if (log_holding) {
		if (log_held_len + n <= sizeof(log_held)) {
			memcpy(log_held + log_held_len, buf, n);
			log_held_len += n;
		}
	} else {
		log_write(buf, n);
	}
	errno = saved;
}

void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(fmt, ap);
	va_end(ap);
}

void log_once(enum log_once_id id, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&log_said[id], true, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	log_vmsg(fmt, ap);
	va_end(ap);
}

void log_hold(bool (*say_now)(void))
{
	log_say_now = say_now;
	log_holding = true;
}

void log_release(bool say)
{
	size_t start = 0;

	log_holding = false;
	log_say_now = NULL;
	/* line by line: one write(2) each, as always */
	for (size_t i = 0; say && i < log_held_len; i++) {
		if (log_held[i] != '\n')
			continue;
		log_write(log_held + start, i + 1 - start);
		start = i + 1;
	}
	log_held_len = 0;
}
