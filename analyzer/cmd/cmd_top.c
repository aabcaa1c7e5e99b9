// SPDX-License-Identifier: MIT
/*
 * cmd_top: extprof top [options] DIR.  Every second, read the dumps of DIR
 * as they stand (a running program's are live mappings, read correctly
 * while it writes them), build the report and draw it as one frame; when
 * every process has ended, print the final report and leave.  On a
 * terminal: the alternate screen, redrawn in place, colour, q quits; else
 * frames one after another, plain.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "util/num.h"
#include "util/out.h"
#include "cmd/top.h"

void cmd_top_usage(FILE *out)
{
	fputs("usage: extprof top [options] DIR\n"
	      "\n"
	      "A live table of the dumps in DIR while the program that writes them runs,\n"
	      "redrawn every second: per declaration its evaluations, evaluations per\n"
	      "second, per-eval, cost, and cost and observed as shares of the run total,\n"
	      "in the report's order.  When every process has ended it prints the final\n"
	      "report (as extprof report DIR) and exits.  On a terminal it redraws in place,\n"
	      "with colour; q or Ctrl-C quits.  Otherwise it prints frame after frame.\n"
	      "\n"
	      "options:\n"
	      "  --once                   print one frame and exit (for scripts and tests)\n"
	      "  -d, --delay SECONDS      between frames (default 1)\n"
	      "  --wait SECONDS           give up, status 2, when DIR has been missing this\n"
	      "                           long (default 10; 0: at once)\n"
	      "  --sort, --stat, --flag-ratio, --allow-mixed, --strict, --color\n"
	      "                           as for extprof report (see extprof report --help)\n"
	      "  --format text|json|csv   of the final report (default text)\n"
	      "  -h, --help               this text\n",
	      out);
}

enum { OPT_ONCE = XP_OPT_RUN_FIRST, OPT_WAIT };

#define TOP_WAIT_DEFAULT 10.0 /* seconds: extprof run makes DIR before the program starts */

static int top_parse(int argc, char **argv, struct xp_top *t)
{
	static const struct option longopts[] = {
		XP_REPORT_LONGOPTS,
		{"once", no_argument, NULL, OPT_ONCE},
		{"delay", required_argument, NULL, 'd'},
		{"wait", required_argument, NULL, OPT_WAIT},
		{NULL, 0, NULL, 0},
	};
	struct xp_err e = {""};
	int c, r;

	memset(t, 0, sizeof(*t));
	t->delay = 1.0;
	t->wait = TOP_WAIT_DEFAULT;
	xp_report_opts_init(&t->report);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hd:", longopts, NULL)) != -1) {
		if (c == 'h' || c == XP_OPT_HELP) {
			cmd_top_usage(stdout);
			return 0;
		}
		if (c == OPT_ONCE) {
			t->once = true;
			continue;
		}
		if (c == 'd') {
			if (xp_parse_ratio(optarg, &t->delay) || t->delay < 0.05 ||
			    t->delay > 3600) {
				fprintf(stderr,
					"extprof: top: -d %s: expected seconds between frames, "
					"0.05 "
					"to 3600 (DIR is named without an option)\n",
					optarg);
				return -1;
			}
			continue;
		}
		if (c == OPT_WAIT) {
			if (xp_parse_ratio(optarg, &t->wait) || t->wait > 86400) {
				fprintf(stderr,
					"extprof: top: --wait %s: expected seconds, 0 to 86400\n",
					optarg);
				return -1;
			}
			continue;
		}
		if (c == XP_OPT_FORMAT) {
			r = xp_report_opt_format_of(&t->report, optarg, "top", XP_FORMATS_TABLE, &e)
				    ? -1
				    : 1;
		} else {
			r = xp_report_getopt(c, optarg, &t->report, &e);
		}
		if (r < 0) {
			xp_err_print(&e);
			return -1;
		}
		if (!r || c == XP_OPT_SHOW_CALLERS) {
			xp_bad_option("top", argv);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fputs("extprof: top: name one dump directory (see extprof top --help)\n", stderr);
		return -1;
	}
	t->dir = argv[optind];
	return 1;
}

static double top_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Has the process ended?  Its dumps say so at a clean exit or an exec;
 * one on this host that crashed or was killed is gone from the process
 * table.  One on another host that did not finish cleanly: not known.
 */
static bool top_ended(const struct xp_proc *p, const char *host)
{
	if (p->complete)
		return true;
	if (strncmp(p->key.hostname, host, sizeof(p->key.hostname)))
		return false;
	return p->key.pid && p->key.pid < (uint64_t)INT32_MAX && kill((pid_t)p->key.pid, 0) < 0 &&
	       errno == ESRCH;
}

/* The terminal while top draws on it: its settings before, and its size. */
struct top_term {
	bool tty;  /* stdout is a terminal: redraw in place */
	bool keys; /* stdin is a terminal we set to read single keys */
	struct termios saved;
	unsigned rows, cols;
};

static volatile sig_atomic_t top_stop;

static void top_on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void top_term_enter(struct top_term *tt, bool once)
{
	struct sigaction sa = {.sa_handler = top_on_signal};
	struct termios raw;

	memset(tt, 0, sizeof(*tt));
	tt->tty = !once && isatty(STDOUT_FILENO);
	if (!tt->tty)
		return;
	/* no SA_RESTART: a signal ends the wait for the next frame at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &tt->saved)) {
		raw = tt->saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tt->keys = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	fputs("\033[?1049h\033[?25l", stdout); /* the alternate screen, no cursor */
}

static void top_term_leave(struct top_term *tt)
{
	if (!tt->tty)
		return;
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (tt->keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &tt->saved);
}

static void top_term_size(struct top_term *tt)
{
	struct winsize ws;

	tt->rows = 24;
	tt->cols = 80;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		tt->rows = ws.ws_row;
		tt->cols = ws.ws_col;
	}
}

/*
 * A frame onto the terminal: from the top left, each line cut at the
 * width (escape sequences take none) and its rest cleared, as many lines
 * as the screen has, the rest of the screen cleared.
 */
static void top_term_draw(struct top_term *tt, const char *frame)
{
	unsigned line = 0, col = 0;

	top_term_size(tt);
	fputs("\033[H", stdout);
	for (const char *p = frame; *p && line < tt->rows; p++) {
		if (*p == '\n') {
			if (++line < tt->rows)
				fputs("\033[K\n", stdout);
			col = 0;
			continue;
		}
		if (*p == '\033') {
			const char *end = p + 1;

			while (*end && *end != 'm')
				end++;
			fwrite(p, 1, (size_t)(end - p) + (*end != 0), stdout);
			p = *end ? end : end - 1;
			continue;
		}
		/* UTF-8 continuation bytes take no column */
		if (col < tt->cols || ((unsigned char)*p & 0xc0) == 0x80)
			fputc(*p, stdout);
		if (((unsigned char)*p & 0xc0) != 0x80)
			col++;
	}
	fputs("\033[0m\033[K\033[J", stdout);
	fflush(stdout);
}

/* Wait @delay seconds, or until q or a signal: true to go on. */
static bool top_wait(const struct top_term *tt, double delay)
{
	double until = top_now() + delay;

	while (!top_stop) {
		struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
		double left = until - top_now();
		char key;

		if (left <= 0)
			return true;
		if (!tt->keys) {
			struct timespec ts = {(time_t)left,
					      (long)((left - (double)(time_t)left) * 1e9)};

			nanosleep(&ts, NULL);
			continue;
		}
		if (poll(&pfd, 1, (int)(left * 1000) + 1) > 0 && read(STDIN_FILENO, &key, 1) == 1 &&
		    (key == 'q' || key == 'Q'))
			return false;
	}
	return false;
}

/* Read DIR as it stands into @r: 1 built, 0 nothing to show yet (@why), <0 error (@e). */
static int top_load(struct xp_top *t, struct xp_load *l, struct xp_report *r,
		    struct xp_top_state *st, struct xp_err *e, char *why, size_t whylen)
{
	char host[64] = "";
	int err;

	xp_load_init(l, t->report.strict);
	l->defer = true; /* a skipped file is counted in the frame, not said on stderr */
	err = xp_load_arg(l, t->dir, e);
	if (err == -ENOENT || (!err && !l->files)) {
		bool gone = err && access(t->dir, F_OK) < 0;

		/* no DIR (not: no dumps in it yet) is waited for --wait seconds at most */
		snprintf(why, whylen, "waiting: %s",
			 !err && l->skipped ? "no readable dump yet" : e->msg);
		if (gone)
			snprintf(why + strlen(why), whylen - strlen(why),
				 " (given up after %g s: --wait)", t->wait);
		return 0;
	}
	if (err)
		return err;
	st->skipped = l->skipped;
	err = xp_report_build(r, &l->set, &t->report, l->skipped, e);
	if (err)
		return err;
	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; i < l->set.n; i++) {
		if (top_ended(l->set.list[i], host))
			st->ended++;
		else
			st->running++;
	}
	return 1;
}

/* One frame, drawn: 1 go on, 0 every process has ended (@r kept for the final report). */
static int top_step(struct xp_top *t, struct top_term *tt, struct xp_report *r, bool *have,
		    struct xp_err *e)
{
	struct xp_top_state st = {.now = top_now()};
	char why[1100], *frame = NULL;
	struct timespec rt;
	size_t len = 0;
	struct xp_load l;
	FILE *mem;
	int got, err = 0;

	clock_gettime(CLOCK_REALTIME, &rt);
	st.realtime_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
	got = top_load(t, &l, r, &st, e, why, sizeof(why));
	xp_load_free(&l);
	if (got < 0)
		return got;
	*have = got > 0;
	st.waiting = got ? NULL : why;
	if (got && !st.running && !t->once)
		return 0;
	mem = open_memstream(&frame, &len);
	if (!mem)
		return xp_err_set(e, -ENOMEM, "out of memory");
	err = xp_top_screen(t, got ? r : NULL, &st, mem, xp_out_colour(stdout));
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (!err) {
		if (tt->tty) {
			top_term_draw(tt, frame);
		} else {
			fputs(frame, stdout);
			if (!t->once)
				fputc('\n', stdout);
			err = xp_out_finish(stdout, 0);
		}
	}
	free(frame);
	if (got) {
		xp_report_free(r);
		*have = false;
	}
	if (err)
		return xp_err_set(e, err, "writing: %s", strerror(-err));
	return 1;
}

/*
 * Whether DIR is missing, and then in @left the seconds it may still be:
 * --wait from when it was last there (or top started), @seen.  A DIR that
 * never comes (a typo, a run that failed) must not keep top waiting for
 * ever.
 */
static bool top_missing(const struct xp_top *t, double *seen, double *left)
{
	struct stat st;
	double now = top_now();

	if (stat(t->dir, &st) == 0 || errno != ENOENT) {
		*seen = now;
		return false;
	}
	*left = *seen + t->wait - now;
	return true;
}

int cmd_top(int argc, char **argv)
{
	struct top_term tt;
	struct xp_report r;
	struct xp_err e = {""};
	struct xp_top t;
	bool have = false, gave_up = false, missing;
	int status = 0, step = 1;
	double seen = top_now(), left = 0, delay;

	step = top_parse(argc, argv, &t);
	if (step <= 0)
		return step ? XP_EXIT_BAD : 0;
	top_term_enter(&tt, t.once);
	for (;;) {
		missing = top_missing(&t, &seen, &left);
		if (missing && (gave_up = left <= 0))
			break;
		/* --once: the one frame is of DIR, once there */
		if (missing && t.once) {
			if (!top_wait(&tt, left < 0.1 ? left : 0.1))
				break;
			continue;
		}
		step = top_step(&t, &tt, &r, &have, &e);
		delay = missing && left < t.delay ? left : t.delay;
		if (step <= 0 || t.once || !top_wait(&tt, delay))
			break;
	}
	top_term_leave(&tt);
	if (gave_up) {
		fprintf(stderr, "extprof: top: %s: no such directory after waiting %g s (--wait)\n",
			t.dir, t.wait);
		status = XP_EXIT_BAD;
	} else if (step < 0) {
		xp_err_print(&e);
		status = XP_EXIT_BAD;
	} else if (step == 0 && have) {
		/* every process has ended: the report, as extprof report DIR prints it */
		int err = xp_report_print(&r, stdout);

		if (err) {
			xp_err_set(&e, err, "writing the report: %s", strerror(-err));
			xp_err_print(&e);
			status = XP_EXIT_BAD;
		}
	}
	if (have)
		xp_report_free(&r);
	xp_top_free(&t);
	return status;
}
