// SPDX-License-Identifier: MIT
/* main: extprof COMMAND [options] ...: dispatch, --help, --version. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

#ifndef EXTPROF_VERSION
#define EXTPROF_VERSION "unknown"
#endif

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *out);
	const char *summary;
};

static const struct command commands[] = {
	{"run", cmd_run, cmd_run_usage, "run a program under the shim, then print the report"},
	{"report", cmd_report, cmd_report_usage, "merge dumps, finalize them, print the report"},
	{"dump", cmd_dump, cmd_dump_usage, "show one dump file raw"},
	{"diff", cmd_diff, cmd_diff_usage, "compare two runs declaration by declaration"},
	{"top", cmd_top, cmd_top_usage, "a live table of a running program's dumps"},
	{"doubling", cmd_doubling, cmd_doubling_usage,
	 "how each function's cost grows with the input size N"},
	{"symbols", cmd_symbols, cmd_symbols_usage,
	 "list the functions of an ELF file the shim can hook"},
	{"attach", cmd_attach, cmd_attach_usage,
	 "hook a running process for a while, then put it back and report"},
	{"detach", cmd_detach, cmd_detach_usage, "end an attachment made with attach --duration 0"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fputs("usage: extprof COMMAND [options] [ARGS...]\n"
	      "\n"
	      "What each of your functions costs per call, in a unit that does not move\n"
	      "with machine load, without recompiling the program.\n"
	      "\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "  extprof run [options] -- PROGRAM [ARGS...]\n"
	      "  extprof report [options] DIR|FILE...\n"
	      "  extprof dump FILE\n"
	      "  extprof diff [options] BASE NEW\n"
	      "  extprof top [--once] [options] DIR\n"
	      "  extprof doubling [options] N=DIR N=DIR...\n"
	      "  extprof doubling --sizes N1,N2,... [options] -- PROGRAM [ARGS with {N}...]\n"
	      "  extprof symbols OBJECT [GLOB]\n"
	      "  extprof attach [options] -H KIND:PATTERN[@OBJECT]... PID\n"
	      "  extprof detach [options] PID\n"
	      "\n"
	      "options:\n"
	      "  -h, --help     this text; extprof COMMAND --help for a command's options\n"
	      "  -V, --version  the version\n",
	      out);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	const struct command *c = argc > 2 ? find(argv[2]) : NULL;

	if (argc > 2 && !c) {
		fprintf(stderr, "extprof: unknown command '%s' (see extprof --help)\n", argv[2]);
		return XP_EXIT_BAD;
	}
	if (c)
		c->usage(stdout);
	else
		usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		fputs("extprof: name a command: run, report, diff, dump, ... (see extprof "
		      "--help)\n",
		      stderr);
		return XP_EXIT_BAD;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("extprof %s\n", EXTPROF_VERSION);
		return 0;
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "extprof: unknown command '%s' (see extprof --help)\n", argv[1]);
		return XP_EXIT_BAD;
	}
	return c->run(argc - 1, argv + 1);
}
