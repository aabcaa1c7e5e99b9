// SPDX-License-Identifier: MIT
/*
 * The shim's pure logic, alone (and under ASan and UBSan in the sanitized
 * pass): the entry parser (spec.c) and the split of an entry's
 * PATTERN@VERSION@OBJECT (hooks_entry.c), the floor rule (floor.h), and the
 * patch planner (arch_plan_hook, and hookable_plan over it) on well-known
 * encodings and on every exported function of Debian's libz, whose
 * instruction boundaries objdump gives independently.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "plan.h"
#include "count/floor.h"
#include "hookable.h"
#include "hooks_entry.h"
#include "core/log.h"
#include "resolve/spec.h"

/* ---- the entry parser ----------------------------------------------------- */

/* What log_msg said, one line after another. */
static char said[8192];
static size_t nsaid;

static void say_into_buffer(const char *line, size_t len)
{
	if (nsaid + len + 1 < sizeof(said)) {
		memcpy(said + nsaid, line, len);
		nsaid += len;
		said[nsaid] = '\0';
	}
}

static void capture_log(void)
{
	said[0] = '\0';
	nsaid = 0;
	log_set_sink(say_into_buffer);
}

static struct spec_list list;

TestSuite(spec, .init = capture_log);

Test(spec, entries_split_at_the_colon_and_the_first_at)
{
	memset(&list, 0, sizeof(list));
	cr_assert_eq(spec_parse_text(&list,
				     "function:memcpy@GLIBC_2.2.5@libc.so.6, tsc:foo\n"
				     "\tvar:counter_x@libm.so.6  function:0x1a2b35!@libc.so.6",
				     "EXTPROF_HOOKS", 0),
		     0, "%s", said);
	cr_assert_eq(list.n, 4);
	cr_assert_str_eq(list.entries[0].kind, "function");
	cr_assert_str_eq(list.entries[0].pattern, "memcpy");
	cr_assert_str_eq(list.entries[0].object, "GLIBC_2.2.5@libc.so.6");
	cr_assert_str_eq(list.entries[1].kind, "tsc");
	cr_assert_str_eq(list.entries[1].pattern, "foo");
	cr_assert_str_eq(list.entries[1].object, "");
	cr_assert_str_eq(list.entries[2].kind, "var");
	cr_assert_str_eq(list.entries[2].pattern, "counter_x");
	cr_assert_str_eq(list.entries[3].pattern, "0x1a2b35!");
	cr_assert_str_eq(said, "");
}

Test(spec, a_bad_entry_is_said_with_where_it_is_and_the_good_ones_kept)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{"memcpy", "EXTPROF_SPEC:7 'memcpy': expected KIND:PATTERN[@OBJECT]"},
		{":memcpy", "expected KIND:PATTERN[@OBJECT]"},
		{"function:", "expected KIND:PATTERN[@OBJECT]"},
		{"function:memcpy@", "the object after '@' is missing or too long"},
		{"function:0x12zz@libc.so.6", "'0x12zz' is not a hexadecimal offset"},
		{"function:0x@libc.so.6", "'0x' is not a hexadecimal offset"},
		{"function:0x12345678123456789", "is not a hexadecimal offset"},
		{"Fun$ction:memcpy", "kind must be"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];

		memset(&list, 0, sizeof(list));
		capture_log();
		snprintf(text, sizeof(text), "tsc:good %s tsc:also_good", bad[i].text);
		cr_expect_eq(spec_parse_text(&list, text, "EXTPROF_SPEC", 7), -EINVAL, "%s",
			     bad[i].text);
		cr_expect_eq(list.n, 2, "%s: the good entries kept", bad[i].text);
		cr_expect(strstr(said, bad[i].says), "%s: said '%s'", bad[i].text, said);
		cr_expect_eq(strchr(said, '\n'), strrchr(said, '\n'), "%s: one line: %s",
			     bad[i].text, said);
	}
}

Test(spec, entries_past_the_limit_are_refused_once)
{
	size_t len = (size_t)(SPEC_MAX_ENTRIES + 3) * 16 + 1;
	char *text = calloc(1, len), line[128];

	cr_assert(text);
	for (int i = 0, at = 0; i < SPEC_MAX_ENTRIES + 3; i++)
		at += snprintf(text + at, len - (size_t)at, "tsc:f%03x ", i & 0xfff);
	memset(&list, 0, sizeof(list));
	cr_assert_eq(spec_parse_text(&list, text, "EXTPROF_HOOKS", 0), -E2BIG);
	cr_assert_eq(list.n, SPEC_MAX_ENTRIES);
	cr_assert(list.full);
	snprintf(line, sizeof(line), "entry %d: more than %d entries; the rest are ignored",
		 SPEC_MAX_ENTRIES + 1, SPEC_MAX_ENTRIES);
	cr_assert(strstr(said, line), "%s", said);
	/* said once, though the next text is refused too */
	nsaid = 0;
	said[0] = '\0';
	cr_assert_eq(spec_parse_text(&list, "tsc:more", "EXTPROF_SPEC", 3), -E2BIG);
	cr_assert_str_eq(said, "");
	free(text);
}

Test(spec, a_window_pattern_with_a_bad_offset_is_said)
{
	cr_assert(spec_check_pattern("main@prog", "EXTPROF_WINDOW"));
	cr_assert(spec_check_pattern("0x1a2b@prog", "EXTPROF_WINDOW"));
	cr_assert_str_eq(said, "");
	cr_assert_not(spec_check_pattern("0xg1@prog", "EXTPROF_WINDOW"));
	cr_assert(strstr(said, "EXTPROF_WINDOW=0xg1@prog: not a hexadecimal offset; not used"),
		  "%s", said);
}

/* ---- an entry's PATTERN@VERSION@OBJECT (docs/hooking.md, "Versions") ------- */

/* The entry @text parsed by spec.c, then split by hooks_want_parse into @w. */
static void want_of(const char *text, struct spec_entry *e, struct hooks_want *w)
{
	memset(&list, 0, sizeof(list));
	cr_assert_eq(spec_parse_text(&list, text, "test", 0), 0, "%s: %s", text, said);
	cr_assert_eq(list.n, 1);
	*e = list.entries[0];
	hooks_want_parse(w, e);
}

TestSuite(entry, .init = capture_log);

Test(entry, every_form_the_docs_give)
{
	static const struct {
		const char *text, *pattern, *version, *object;
		bool default_only, offset, forced, glob;
		uint64_t off;
	} cases[] = {
		{"function:memcpy", "memcpy", "", "", false, false, false, false, 0},
		{"function:memcpy@libc.so.6", "memcpy", "", "libc.so.6", false, false, false, false,
		 0},
		{"function:memcpy@GLIBC_2.2.5@libc.so.6", "memcpy", "GLIBC_2.2.5", "libc.so.6",
		 false, false, false, false, 0},
		{"function:memcpy@@GLIBC_2.14", "memcpy", "GLIBC_2.14", "", true, false, false,
		 false, 0},
		{"function:memcpy@GLIBC_2.2.5@*", "memcpy", "GLIBC_2.2.5", "*", false, false, false,
		 false, 0},
		{"function:0x1a2b30@libc.so.6", "0x1a2b30", "", "libc.so.6", false, true, false,
		 false, 0x1a2b30},
		{"function:0x1a2b35!@libc.so.6", "0x1a2b35!", "", "libc.so.6", false, true, true,
		 false, 0x1a2b35},
		{"function:round_and_return@0x43770@libc.so.6", "round_and_return", "0x43770",
		 "libc.so.6", false, false, false, false, 0},
		{"tsc:str*cmp@libc.so.6", "str*cmp", "", "libc.so.6", false, false, false, true, 0},
		{"tsc:mem[cm]py", "mem[cm]py", "", "", false, false, false, true, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spec_entry e;
		struct hooks_want w;
		char back[600];

		want_of(cases[i].text, &e, &w);
		cr_expect_str_eq(w.pattern, cases[i].pattern, "%s", cases[i].text);
		cr_expect_str_eq(w.version, cases[i].version, "%s", cases[i].text);
		cr_expect_str_eq(w.object, cases[i].object, "%s", cases[i].text);
		cr_expect_eq(w.default_only, cases[i].default_only, "%s", cases[i].text);
		cr_expect_eq(w.offset, cases[i].offset, "%s", cases[i].text);
		cr_expect_eq(w.forced, cases[i].forced, "%s", cases[i].text);
		cr_expect_eq(w.glob, cases[i].glob, "%s", cases[i].text);
		cr_expect_eq(w.off, cases[i].off, "%s", cases[i].text);
		cr_expect_not(w.bad_offset, "%s", cases[i].text);
		/* and said back as it was written */
		cr_expect_str_eq(hooks_want_text(&w, back, sizeof(back)), cases[i].text);
	}
}

Test(entry, a_version_too_long_is_cut_not_overrun)
{
	struct spec_entry e;
	struct hooks_want w;

	memset(&e, 0, sizeof(e));
	strcpy(e.kind, "function");
	strcpy(e.pattern, "f");
	memset(e.object, 'V', 200);
	strcpy(e.object + 200, "@libc.so.6");
	hooks_want_parse(&w, &e);
	cr_assert_eq(strlen(w.version), sizeof(w.version) - 1);
	cr_assert_str_eq(w.object, "libc.so.6");
}

/* ---- the floor rule -------------------------------------------------------- */

Test(floor, hits_count_the_deltas_within_the_margin_of_the_floor)
{
	uint64_t floor = EXTPROF_FLOOR_NONE, hits = 0;

	/* steps: a margin of 2 whatever the floor */
	cr_assert(floor_add(EXTPROF_COUNTER_STEPS, &floor, &hits, 1000));
	cr_assert_eq(floor, 1000);
	cr_assert_eq(hits, 1);
	cr_assert_not(floor_add(EXTPROF_COUNTER_STEPS, &floor, &hits, 1002)); /* at the margin */
	cr_assert_not(floor_add(EXTPROF_COUNTER_STEPS, &floor, &hits, 1003)); /* past it */
	cr_assert_eq(hits, 2);
	/* a new floor within the margin of the old keeps its hits, and is one more */
	cr_assert(floor_add(EXTPROF_COUNTER_STEPS, &floor, &hits, 998));
	cr_assert_eq(floor, 998);
	cr_assert_eq(hits, 3);
	/* one below it by more starts again */
	cr_assert(floor_add(EXTPROF_COUNTER_STEPS, &floor, &hits, 995));
	cr_assert_eq(hits, 1);
	cr_assert_not(floor_add(EXTPROF_COUNTER_STEPS, &floor, &hits, 995));
	cr_assert_eq(hits, 2);
}

Test(floor, a_clock_s_margin_is_one_percent_of_its_floor_above_2)
{
	uint64_t floor = EXTPROF_FLOOR_NONE, hits = 0;

	floor_add(EXTPROF_COUNTER_TSC, &floor, &hits, 10000);
	cr_assert_not(floor_add(EXTPROF_COUNTER_TSC, &floor, &hits, 10100)); /* +1 %: a hit */
	cr_assert_not(floor_add(EXTPROF_COUNTER_TSC, &floor, &hits, 10101)); /* past it */
	cr_assert_eq(hits, 2);
	/* 9950: 50 below, within 1 % of 9950 (99): the old hits carried */
	cr_assert(floor_add(EXTPROF_COUNTER_TSC, &floor, &hits, 9950));
	cr_assert_eq(hits, 3);
	/* a small clock floor: 2 units, not 1 % */
	floor = EXTPROF_FLOOR_NONE;
	hits = 0;
	floor_add(EXTPROF_COUNTER_NS, &floor, &hits, 150);
	cr_assert_not(floor_add(EXTPROF_COUNTER_NS, &floor, &hits, 152));
	cr_assert_not(floor_add(EXTPROF_COUNTER_NS, &floor, &hits, 153));
	cr_assert_eq(hits, 2);
	/* the first delta after none, and a delta of 0 */
	floor = EXTPROF_FLOOR_NONE;
	hits = 0;
	cr_assert(floor_add(EXTPROF_COUNTER_NS, &floor, &hits, 0));
	cr_assert_eq(floor, 0);
	cr_assert_eq(hits, 1);
	cr_assert_not(floor_add(EXTPROF_COUNTER_NS, &floor, &hits, UINT64_MAX));
	cr_assert_eq(hits, 1);
}

Test(floor, merged_floors_keep_the_lower_and_add_hits_when_equal)
{
	uint64_t floor = 500, hits = 7;

	floor_merge(&floor, &hits, 600, 100);
	cr_assert_eq(floor, 500);
	cr_assert_eq(hits, 7);
	floor_merge(&floor, &hits, 500, 3);
	cr_assert_eq(hits, 10);
	floor_merge(&floor, &hits, 499, 1);
	cr_assert_eq(floor, 499);
	cr_assert_eq(hits, 1);
	floor_merge(&floor, &hits, EXTPROF_FLOOR_NONE, 0);
	cr_assert_eq(floor, 499);
	cr_assert_eq(hits, 1);
}

/* ---- the patch planner ----------------------------------------------------- */

/* The plan of @code alone (no object around it): 0 or -EINVAL with @why. */
static int plan_alone(const uint8_t *code, size_t size, uint64_t addr, struct arch_plan *plan,
		      char *why, size_t whylen)
{
	why[0] = '\0';
	return arch_plan_hook(code, size, addr, 0, NULL, NULL, NULL, plan, why, whylen);
}

/* Assert that planning @code (@size bytes at 0x401000) is refused with @says. */
#define EXPECT_REFUSED(code, size, says)                                                           \
	do {                                                                                       \
		struct arch_plan p_;                                                               \
		char why_[200];                                                                    \
		cr_expect_eq(plan_alone(code, size, 0x401000, &p_, why_, sizeof(why_)), -EINVAL,   \
			     "%s", says);                                                          \
		cr_expect_str_eq(why_, says);                                                      \
	} while (0)

Test(plan, the_first_whole_instructions_of_5_bytes_move)
{
	/* endbr64; push %rbp; mov %rsp,%rbp; sub $0x10,%rsp; ... ret */
	static const uint8_t fn[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5,
				     0x48, 0x83, 0xec, 0x10, 0x90, 0x90, 0xc9, 0xc3};
	struct arch_plan p;
	char why[200];

	cr_assert_eq(plan_alone(fn, sizeof(fn), 0x401000, &p, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(p.insn.start, 4, "the patch goes after endbr64");
	/* push (1), mov (3), sub (4): 8 bytes, the first whole instructions past 5 */
	cr_assert_eq(p.insn.length, 8);
	cr_assert_eq(p.insn.nmoved, 3);
	cr_assert_eq(p.insn.moved[0].offset, 4);
	cr_assert_eq(p.insn.moved[1].offset, 5);
	cr_assert_eq(p.insn.moved[2].offset, 8);
	for (uint32_t i = 0; i < p.insn.nmoved; i++)
		cr_assert_eq(p.insn.moved[i].move, INSN_COPY);
}

Test(plan, branches_and_rip_relative_operands_are_re_aimed)
{
	/* mov 0x2000(%rip),%rax (7 bytes): its operand at 0x401007 + 0x2000 */
	static const uint8_t riprel[] = {0x48, 0x8b, 0x05, 0x00, 0x20, 0x00, 0x00, 0xc3};
	/* test %rdi,%rdi; je +0x10; mov %rdi,%rax; ret ... */
	static const uint8_t jcc[] = {0x48, 0x85, 0xff, 0x74, 0x10, 0x48, 0x89, 0xf8,
				      0xc3, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
				      0x90, 0x90, 0x90, 0x90, 0x90, 0xc3};
	/* jmp rel32 to 0x401000 + 5 + 0x100 (a tail call) */
	static const uint8_t jmp[] = {0xe9, 0x00, 0x01, 0x00, 0x00};
	/* call rel32 (ends at +5), then ret */
	static const uint8_t call[] = {0xe8, 0xfb, 0x0f, 0x00, 0x00, 0xc3};
	struct arch_plan p;
	char why[200];

	cr_assert_eq(plan_alone(riprel, sizeof(riprel), 0x401000, &p, why, sizeof(why)), 0, "%s",
		     why);
	cr_assert_eq(p.insn.nmoved, 1);
	cr_assert_eq(p.insn.moved[0].move, INSN_RIPREL);
	cr_assert_eq(p.insn.moved[0].disp_off, 3);
	cr_assert_eq(p.insn.moved[0].target, 0x403007);

	cr_assert_eq(plan_alone(jcc, sizeof(jcc), 0x401000, &p, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(p.insn.nmoved, 2);
	cr_assert_eq(p.insn.moved[1].move, INSN_JCC);
	cr_assert_eq(p.insn.moved[1].cond, 0x4); /* je: condition 4 */
	cr_assert_eq(p.insn.moved[1].target, 0x401015);

	cr_assert_eq(plan_alone(jmp, sizeof(jmp), 0x401000, &p, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(p.insn.moved[0].move, INSN_JMP);
	cr_assert_eq(p.insn.moved[0].target, 0x401105);

	cr_assert_eq(plan_alone(call, sizeof(call), 0x401000, &p, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(p.insn.moved[0].move, INSN_CALL);
	cr_assert_eq(p.insn.moved[0].target, 0x402000);
}

Test(plan, what_cannot_move_is_refused_with_its_reason)
{
	/* lea (%rdi,%rsi),%eax; ret: 4 bytes */
	static const uint8_t tiny[] = {0x8d, 0x04, 0x37, 0xc3};
	/* endbr64; lea; ret: 8 bytes, 4 after endbr64 */
	static const uint8_t tiny_endbr[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x8d, 0x04, 0x37, 0xc3};
	/* xor %eax,%eax; ret; then more of the function */
	static const uint8_t ret_early[] = {0x31, 0xc0, 0xc3, 0x90, 0x90, 0x90, 0x90, 0xc3};
	/* xor %eax,%eax; xor %edx,%edx; ret: the ret is the last byte moved */
	static const uint8_t ret_last[] = {0x31, 0xc0, 0x31, 0xd2, 0xc3};
	/* jrcxz +2: no rel32 form to re-aim it with */
	static const uint8_t jrcxz[] = {0xe3, 0x02, 0x90, 0x90, 0x90, 0x90, 0xc3};
	/* xor %eax,%eax; 1: add %rdi,%rax; dec %rdi; jnz 1b; ret */
	static const uint8_t loop_back[] = {0x31, 0xc0, 0x48, 0x01, 0xf8, 0x48,
					    0xff, 0xcf, 0x75, 0xf8, 0xc3};
	/* 0x06 (push %es) is no instruction in 64-bit mode */
	static const uint8_t undecodable[] = {0x06, 0x90, 0x90, 0x90, 0x90, 0xc3};
	struct arch_plan p;
	char why[200];

	EXPECT_REFUSED(tiny, sizeof(tiny), "is 4 bytes, too short for the 5-byte jump to its stub");
	EXPECT_REFUSED(tiny_endbr, sizeof(tiny_endbr),
		       "is 8 bytes with its endbr64, too short for the 5-byte jump to its stub");
	EXPECT_REFUSED(tiny, 1, "is 1 byte, too short for the 5-byte jump to its stub");
	EXPECT_REFUSED(ret_early, sizeof(ret_early), "returns at +0x2, inside the patched bytes");
	EXPECT_REFUSED(jrcxz, sizeof(jrcxz), "cannot move 'jrcxz' at +0x0");
	EXPECT_REFUSED(loop_back, sizeof(loop_back),
		       "a jump at +0x8 lands inside the patched bytes");
	cr_assert_eq(plan_alone(ret_last, sizeof(ret_last), 0x401000, &p, why, sizeof(why)), 0,
		     "%s", why);
	cr_assert_eq(p.insn.length, 5);
	EXPECT_REFUSED(undecodable, sizeof(undecodable), "cannot decode the instruction at +0x0");
}

/* hookable_plan over a buffer: the object's code by offset */
static const uint8_t *code_in_buffer(uint64_t value, uint64_t size, void *arg)
{
	const uint8_t *buf = arg;

	return value + size <= 64 ? buf + value : NULL;
}

Test(plan, the_verdict_plans_through_the_port_and_says_why_not)
{
	uint8_t buf[64] = {0};
	struct hookable_obj o = {.name = "test", .alone = true, .code = code_in_buffer, .arg = buf};
	struct hookable_verdict v = {.value = 16, .size = 8};
	static const uint8_t fn[] = {0x55, 0x48, 0x89, 0xe5, 0x5d, 0x31, 0xc0, 0xc3};

	memcpy(buf + 16, fn, sizeof(fn));
	cr_assert(hookable_plan(&o, &v), "%s", v.why);
	cr_assert_eq(v.outcome, HOOKABLE_OK);
	cr_assert_str_eq(v.why, "");
	cr_assert_eq(v.plan.insn.length, 5); /* push (1), mov (3), pop (1) */
	v.value = 60;			     /* past the buffer: no code there */
	cr_assert_not(hookable_plan(&o, &v));
	cr_assert_eq(v.outcome, HOOKABLE_REFUSED);
	cr_assert_str_eq(v.why, "is not in an executable segment");
	v.value = 16;
	v.size = 4;
	cr_assert_not(hookable_plan(&o, &v));
	cr_assert_str_eq(v.why, "is 4 bytes, too short for the 5-byte jump to its stub");
}

/* ---- the planner on a real library, against objdump ------------------------- */

#define REAL_LIB "/usr/lib/x86_64-linux-gnu/libz.so.1"

/* The start of every instruction objdump decodes in [@lo, @hi) of @path, into @at (@max at most).
 */
static size_t objdump_starts(const char *path, uint64_t lo, uint64_t hi, uint64_t *at, size_t max)
{
	char cmd[512], line[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn --start-address=0x%" PRIx64
		 " --stop-address=0x%" PRIx64 " %s",
		 lo, hi, path);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char colon;

		/* "   1a2b0:\tendbr64" */
		if (sscanf(line, " %llx%c", &a, &colon) == 2 && colon == ':' &&
		    strchr(line, '\t') && n < max)
			at[n++] = a;
	}
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	return n;
}

Test(plan, every_exported_function_of_libz_moves_whole_instructions, .timeout = 120)
{
	int fd = open(REAL_LIB, O_RDONLY);
	size_t planned = 0, refused = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	cr_assert(fd >= 0, "%s (zlib1g)", REAL_LIB);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			GElf_Shdr text;
			Elf_Data *bytes;
			Elf_Scn *in;
			struct arch_plan p;
			uint64_t at[64];
			char why[200];
			size_t n, k;
			const uint8_t *code;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_shndx || s.st_shndx >= SHN_LORESERVE || !s.st_size)
				continue;
			in = elf_getscn(elf, s.st_shndx);
			cr_assert(in && gelf_getshdr(in, &text) && (bytes = elf_getdata(in, NULL)));
			code = (const uint8_t *)bytes->d_buf + (s.st_value - text.sh_addr);
			if (plan_alone(code, s.st_size, s.st_value, &p, why, sizeof(why))) {
				refused++;
				cr_expect(why[0], "%s: refused without a reason",
					  elf_strptr(elf, sh.sh_link, s.st_name));
				continue;
			}
			planned++;
			n = objdump_starts(REAL_LIB, s.st_value, s.st_value + s.st_size, at, 63);
			at[n++] = s.st_value + s.st_size; /* and where the function ends */
			cr_assert(n > p.insn.nmoved);
			k = p.insn.start ? 1 : 0; /* objdump's first: endbr64 */
			cr_assert_eq(at[0] + p.insn.start, at[k], "%s",
				     elf_strptr(elf, sh.sh_link, s.st_name));
			/* the moved instructions are objdump's, one after another, and
			 * the fewest whole ones that hold the 5-byte jump */
			for (uint32_t m = 0; m < p.insn.nmoved; m++)
				cr_assert_eq(s.st_value + p.insn.moved[m].offset, at[k + m],
					     "%s +%u", elf_strptr(elf, sh.sh_link, s.st_name),
					     p.insn.moved[m].offset);
			cr_assert_eq(s.st_value + p.insn.start + p.insn.length,
				     at[k + p.insn.nmoved]);
			cr_assert_geq(p.insn.length, 5);
			cr_assert_lt(at[k + p.insn.nmoved - 1] - at[k], 5);
		}
	}
	elf_end(elf);
	close(fd);
	/* libz exports about 90 functions; nearly all are planned */
	cr_assert_geq(planned, 50, "%zu planned, %zu refused", planned, refused);
}
