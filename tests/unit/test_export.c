// SPDX-License-Identifier: MIT
/*
 * The callgrind and pprof writers (report --format callgrind|pprof) on
 * hostile names (quotes, newlines, spaces, very long C++ symbols), on a
 * report of no declarations and on a very large one.  The callgrind file
 * is read back by callgrind_annotate, the pprof file by gunzip (zlib) and
 * protobuf-c's own unpacker: what they read must be what the report says.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "helpers.h"
#include "export/export.h"
#include "model/load.h"
#include "export/profile.pb-c.h"
#include "report/report.h"

TestSuite(export, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 120);

/* A C++ symbol of some 4000 bytes, as templates make them. */
static char *long_symbol(void)
{
	size_t n = 0, cap = 8192;
	char *s = malloc(cap);

	cr_assert(s);
	n += (size_t)snprintf(s, cap, "_ZN5outer");
	for (int i = 0; i < 180; i++)
		n += (size_t)snprintf(s + n, cap - n, "I6nested%02dE", i % 100);
	snprintf(s + n, cap - n, "4callEv");
	return s;
}

#define NHOSTILE 6

static const char *hostile[NHOSTILE] = {
	"with \"quotes\" and 'single'", "new\nline",	"  spaces  inside  ",
	"(1) looks compressed",		"tab\tand\rcr", NULL, /* long_symbol() */
};

/* What the shim's resolver would name the hostile frames. */
static int resolve(uint64_t pc, char *buf, size_t len, uint64_t *off)
{
	if (pc == 0x1000)
		snprintf(buf, len, "caller \"one\"+0x10@obj with space");
	else if (pc == 0x2000)
		snprintf(buf, len, "main\nnext+0x20@prog");
	else
		return -1;
	*off = pc;
	return 0;
}

/* A compact dump of the hostile declarations, one chain each, 2 deep. */
static char *hostile_dump(char *longsym)
{
	struct dump_decl_info decls[NHOSTILE];
	struct dump_meta meta;
	struct dump_map m;
	char *path = xt_path(xt_dir, "hostile.xpd");

	for (int i = 0; i < NHOSTILE; i++) {
		decls[i] = (struct dump_decl_info){"function", hostile[i] ? hostile[i] : longsym,
						   i % 2 ? "lib \"x\".so" : "prog", 0x100u * i};
	}
	xt_meta(&meta, NULL, 0, 4242, 0x4242);
	snprintf(meta.exe_path, sizeof(meta.exe_path), "/opt/odd dir/prog");
	meta.build_id_size = 4;
	memcpy(meta.build_id, "\xde\xad\xbe\xef", 4);
	meta.caller_slots = 2;
	meta.callers_depth = 2;
	xt_create(&m, path, &meta, decls, NHOSTILE, 0);
	for (int i = 0; i < NHOSTILE; i++) {
		struct extprof_dump_caller *c = &m.callers[i * 2];

		xt_record(&m, (uint32_t)i, 10 + (uint64_t)i, 100 + (uint64_t)i);
		c->depth = 2;
		c->pc[0] = 0x1000;
		c->pc[1] = 0x2000;
		c->evaluations = 100 + (uint64_t)i;
		c->floor = 10 + (uint64_t)i;
		c->floor_hits = c->evaluations;
		c->sum = c->floor * c->evaluations;
	}
	cr_assert_eq(dump_write_compact_named(&m, EXTPROF_DUMP_F_COMPLETE, resolve), 0);
	dump_unmap(&m);
	return path;
}

static void build(struct xp_report *r, const char *path)
{
	struct xp_report_opts o;
	struct xp_err e = {""};
	struct xp_load l;

	xp_report_opts_init(&o);
	xp_load_init(&l, false);
	cr_assert_eq(xp_load_arg(&l, path, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_report_build(r, &l.set, &o, l.skipped, &e), 0, "%s", e.msg);
	xp_load_free(&l);
}

/* A writer's output into memory. */
static char *render(const struct xp_report *r, int (*write)(const struct xp_report *, FILE *),
		    size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	cr_assert(f);
	cr_assert_eq(write(r, f), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* Every line of a callgrind file is a header line, a spec, a cost line or empty. */
static void expect_callgrind_lines(const char *s, size_t len)
{
	static const char *const keys[] = {
		"# ",	  "version: ",	 "creator: ", "pid: ",	  "cmd: ",     "part: ",
		"desc: ", "positions: ", "event: ",   "events: ", "summary: ", "totals: ",
		"ob=(",	  "fl=(",	 "fn=(",      "cob=(",	  "cfn=(",     "calls="};
	const char *end = s + len;

	cr_assert(len && s[len - 1] == '\n');
	for (const char *line = s; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		bool ok = nl == line || (*line >= '0' && *line <= '9');

		for (size_t k = 0; !ok && k < sizeof(keys) / sizeof(keys[0]); k++)
			ok = !strncmp(line, keys[k], strlen(keys[k]));
		cr_assert(ok, "not a callgrind line: %.*s", (int)(nl - line), line);
		for (const char *p = line; p < nl; p++)
			cr_assert((unsigned char)*p >= 0x20 && *p != 0x7f, "a control character");
		line = nl + 1;
	}
}

/* Run callgrind_annotate on @path, showing event @show first; its stdout (malloc'd). */
static char *annotate(const char *path, const char *show)
{
	char *cmd, *out = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *p;

	cr_assert(asprintf(&cmd, "callgrind_annotate --threshold=100 --show=%s '%s' 2>&1", show,
			   path) > 0);
	p = popen(cmd, "r");
	cr_assert(p);
	FILE *m = open_memstream(&out, &len);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, m);
	fclose(m);
	cr_assert_eq(pclose(p), 0, "callgrind_annotate failed: %s", out);
	free(cmd);
	return out;
}

static void spit_text(const char *path, const char *s, size_t len)
{
	xt_spit(path, s, len);
}

Test(export, callgrind_hostile_names)
{
	char *longsym = long_symbol(), *path = hostile_dump(longsym), *cg, *ann, *cgpath;
	struct xp_report r;
	size_t len;

	build(&r, path);
	cg = render(&r, xp_report_callgrind, &len);
	expect_callgrind_lines(cg, len);
	cr_expect(strstr(cg, "fn=(") && strstr(cg, "new?line"), "newline not made '?'");
	cr_expect(strstr(cg, "tab?and?cr"));
	cr_expect(strstr(cg, longsym), "the long symbol is cut");
	cr_expect(strstr(cg, "cmd: /opt/odd dir/prog\n"));
	cr_expect(strstr(cg, ") /opt/odd dir/prog\n") && !strstr(cg, ") prog\n"),
		  "the executable by its path:\n%s", cg);
	/* cost first: what callgrind_annotate sorts by and KCachegrind opens on */
	cr_expect(strstr(cg, "\nevents: Cost Evaluations Observed\n"), "%s", cg);
	cgpath = xt_path(xt_dir, "hostile.cg");
	spit_text(cgpath, cg, len);
	ann = annotate(cgpath, "Evaluations");
	/* every declaration with its evaluations (100 + i), self cost (10 + i) x that */
	for (int i = 0; i < NHOSTILE; i++) {
		char want[64], *name;
		const char *at;

		cr_assert(asprintf(&name, "%s", hostile[i] ? hostile[i] : longsym) > 0);
		for (char *p = name; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = '?';
		/* callgrind_annotate drops the leading blanks of a name */
		at = strstr(ann, name + strspn(name, " "));
		cr_assert(at, "callgrind_annotate lost %s:\n%s", name, ann);
		while (at > ann && at[-1] != '\n')
			at--;
		snprintf(want, sizeof(want), "%d ", 100 + i);
		cr_expect(!strncmp(at + strspn(at, " "), want, strlen(want)), "%s: %.80s", name,
			  at);
		free(name);
	}
	/* the chain's frames are callers, with their names as the shim wrote them */
	cr_expect(strstr(cg, "caller \"one\""), "%s", cg);
	cr_expect(strstr(cg, "main?next"));
	cr_expect(strstr(cg, "calls=100 0\n"));
	free(ann);
	free(cg);
	free(cgpath);
	xp_report_free(&r);
	free(path);
	free(longsym);
}

/* gunzip @gz whole (zlib), then unpack it with protobuf-c. */
static Perftools__Profiles__Profile *unpack(const char *gz, size_t len)
{
	size_t cap = 1 << 20, n = 0;
	unsigned char *buf = malloc(cap);
	z_stream z = {0};
	int zr;

	cr_assert(buf);
	cr_assert(len > 18 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b,
		  "not gzip");
	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	do {
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert(buf);
		}
		z.next_out = buf + n;
		z.avail_out = (uInt)(cap - n);
		zr = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
	} while (zr == Z_OK);
	cr_assert_eq(zr, Z_STREAM_END, "gzip stream does not end");
	inflateEnd(&z);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, n, buf);
	cr_assert(p, "protobuf-c cannot unpack it");
	free(buf);
	return p;
}

static const char *pb_str(const Perftools__Profiles__Profile *p, int64_t i)
{
	cr_assert(i >= 0 && (size_t)i < p->n_string_table, "string index %ld", (long)i);
	return p->string_table[i];
}

/* The function of a location. */
static const Perftools__Profiles__Function *pb_fn(const Perftools__Profiles__Profile *p,
						  uint64_t loc)
{
	cr_assert(loc >= 1 && loc <= p->n_location);
	cr_assert_eq(p->location[loc - 1]->id, loc);
	cr_assert_eq(p->location[loc - 1]->n_line, 1);
	uint64_t fid = p->location[loc - 1]->line[0]->function_id;
	cr_assert(fid >= 1 && fid <= p->n_function);
	return p->function[fid - 1];
}

Test(export, pprof_hostile_names)
{
	char *longsym = long_symbol(), *path = hostile_dump(longsym), *gz;
	Perftools__Profiles__Profile *p;
	struct xp_report r;
	size_t len;

	build(&r, path);
	gz = render(&r, xp_report_pprof, &len);
	p = unpack(gz, len);
	cr_assert_eq(p->n_sample_type, 3);
	cr_expect_str_eq(pb_str(p, p->sample_type[0]->type), "evaluations");
	cr_expect_str_eq(pb_str(p, p->sample_type[0]->unit), "count");
	cr_expect_str_eq(pb_str(p, p->sample_type[1]->type), "cost");
	cr_expect_str_eq(pb_str(p, p->sample_type[1]->unit), "steps");
	cr_expect_str_eq(pb_str(p, p->sample_type[2]->type), "observed");
	cr_expect_str_eq(pb_str(p, p->default_sample_type), "cost");
	cr_expect_str_eq(pb_str(p, 0), "");
	/* the executable first, with its path and build-id */
	cr_assert_geq(p->n_mapping, 2);
	cr_expect_str_eq(pb_str(p, p->mapping[0]->filename), "/opt/odd dir/prog");
	cr_expect_str_eq(pb_str(p, p->mapping[0]->build_id), "deadbeef");
	cr_expect(p->mapping[0]->has_functions);
	/* one sample per chain: each declaration's, its name exact, its stack 3 deep; and
	 * one of what no hooked function took */
	cr_assert_eq(p->n_sample, NHOSTILE + (r.run_total > 0));
	for (int i = 0; i < NHOSTILE; i++) {
		const char *want = hostile[i] ? hostile[i] : longsym;
		bool found = false;

		for (size_t k = 0; k < p->n_sample && !found; k++) {
			const Perftools__Profiles__Sample *s = p->sample[k];

			if (strcmp(pb_str(p, pb_fn(p, s->location_id[0])->name), want))
				continue;
			found = true;
			cr_expect_eq(s->n_location_id, 3);
			cr_expect_str_eq(pb_str(p, pb_fn(p, s->location_id[1])->name),
					 "caller \"one\"");
			cr_expect_str_eq(pb_str(p, pb_fn(p, s->location_id[2])->name),
					 "main\nnext");
			cr_expect_eq(s->value[0], 100 + i);
			cr_expect_eq(s->value[1], (10 + i) * (100 + i));
			cr_assert_eq(s->n_label, 2);
			cr_expect_str_eq(pb_str(p, s->label[1]->key), "per-eval");
			cr_expect_eq(s->label[1]->num, 10 + i);
			cr_expect_str_eq(pb_str(p, s->label[0]->str), "function");
		}
		cr_expect(found, "no sample of %.60s", want);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	xp_report_free(&r);
	free(path);
	free(longsym);
}

/* A dump of @n declarations, declaration i evaluated i + 1 times at cost 3. */
static char *many_dump(uint32_t n)
{
	struct dump_decl_info *decls = calloc(n + 1, sizeof(*decls));
	char **names = calloc(n + 1, sizeof(*names));
	struct dump_meta meta;
	struct dump_map m;
	char *path = xt_path(xt_dir, "many.xpd");

	cr_assert(decls && names);
	for (uint32_t i = 0; i < n; i++) {
		cr_assert(asprintf(&names[i], "_ZN2ns5klassILi%uEE6methodEv", i) > 0);
		decls[i] = (struct dump_decl_info){"function", names[i], "prog", 0x10u * i};
	}
	xt_meta(&meta, NULL, 0, 99, 0x99);
	xt_create(&m, path, &meta, decls, n, 0);
	for (uint32_t i = 0; i < n; i++)
		xt_record(&m, i, 3, i + 1);
	xt_finish(&m, n > 0);
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(decls);
	return path;
}

Test(export, a_very_large_report)
{
	const uint32_t n = 20000;
	char *path = many_dump(n), *gz, *cg, *cgpath, *ann;
	Perftools__Profiles__Profile *p;
	struct xp_report r;
	uint64_t evals = 0;
	size_t len, fns = 0;

	build(&r, path);
	cr_assert_eq(r.nrows, n);
	gz = render(&r, xp_report_pprof, &len);
	p = unpack(gz, len);
	cr_expect_eq(p->n_sample, n + (r.run_total > 0));
	cr_expect_eq(p->n_function, n + (r.run_total > 0));
	for (size_t k = 0; k < p->n_sample; k++)
		evals += (uint64_t)p->sample[k]->value[0];
	cr_expect_eq(evals, (uint64_t)n * (n + 1) / 2);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);

	cg = render(&r, xp_report_callgrind, &len);
	expect_callgrind_lines(cg, len);
	for (const char *s = cg; (s = strstr(s, "\nfn=(")); s++)
		fns++;
	cr_expect_eq(fns, n + (r.run_total > 0));
	cgpath = xt_path(xt_dir, "many.cg");
	spit_text(cgpath, cg, len);
	ann = annotate(cgpath, "Evaluations");
	cr_expect(strstr(ann, "200,010,000 (100.0%)"), "the total of evaluations: %.2000s", ann);
	cr_expect(strstr(ann, "_ZN2ns5klassILi19999EE6methodEv"));
	free(ann);
	free(cgpath);
	free(cg);
	xp_report_free(&r);
	free(path);
}

Test(export, an_empty_report)
{
	char *path = many_dump(0), *gz, *cg, *cgpath, *ann;
	Perftools__Profiles__Profile *p;
	struct xp_report r;
	size_t len;

	build(&r, path);
	cr_assert_eq(r.nrows, 0);
	gz = render(&r, xp_report_pprof, &len);
	p = unpack(gz, len);
	cr_expect_eq(p->n_sample, 0);
	cr_expect_eq(p->n_sample_type, 3);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	cg = render(&r, xp_report_callgrind, &len);
	expect_callgrind_lines(cg, len);
	cr_expect(strstr(cg, "\ntotals: 0 0 0\n"), "%s", cg);
	cgpath = xt_path(xt_dir, "empty.cg");
	spit_text(cgpath, cg, len);
	ann = annotate(cgpath, "Cost");
	free(ann);
	free(cgpath);
	free(cg);
	xp_report_free(&r);
	free(path);
}

/* Through the binary: -o FILE, written whole; pprof refused onto a terminal is not testable here.
 */
Test(export, the_binary_writes_o_file)
{
	char *path = many_dump(3), *out = xt_path(xt_dir, "p.pb.gz"), *so, *se;
	const char *argv[] = {"extprof", "report", "--format", "pprof", "-o", out, path, NULL};
	struct stat st;
	size_t len;
	char *gz;

	cr_assert_eq(xt_run(argv, NULL, &so, &se), 0, "%s", se);
	cr_expect_str_eq(so, "");
	cr_assert_eq(stat(out, &st), 0);
	gz = xt_slurp(out, &len);
	Perftools__Profiles__Profile *p = unpack(gz, len);
	cr_expect_eq(p->n_sample, 3 + 1, "3 declarations and what no hooked function took");
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	free(so);
	free(se);
	/* a report that fails leaves the file as it was */
	const char *bad[] = {"extprof", "report", "--format",	  "pprof", "-o",
			     out,	xt_dir,	  "/nonexistent", NULL};
	cr_expect_eq(WEXITSTATUS(xt_run(bad, NULL, &so, &se)), 2);
	gz = xt_slurp(out, &len);
	cr_expect_eq(len, (size_t)st.st_size);
	free(gz);
	free(so);
	free(se);
	free(out);
	free(path);
}

/*
 * Nesting (dump format 3), var: with no calibration, run total 20000:
 *   outer  10 x 1000   at the top
 *   mid    10 x 300    inside outer
 *   leaf   20 x 50     inside mid
 *   both   20 x 20     inside several: 5 inside outer, 15 inside mid (their
 *                      inner, less what the others explain, says which)
 */
static char *nesting_dump(void)
{
	static const struct dump_decl_info decls[] = {
		{"function", "outer", "prog", 0x100},
		{"function", "mid", "prog", 0x200},
		{"function", "leaf", "prog", 0x300},
		{"function", "both", "prog", 0x400},
	};
	struct dump_meta meta;
	struct dump_map m;
	char *path = xt_path(xt_dir, "nesting.xpd");

	xt_meta(&meta, NULL, 0, 77, 0x77);
	xt_create(&m, path, &meta, decls, 4, 0);
	xt_record(&m, 0, 1000, 10);
	xt_record(&m, 1, 300, 10);
	xt_record(&m, 2, 50, 20);
	xt_record(&m, 3, 20, 20);
	m.decls[1].parent = 1;
	m.decls[1].nested = 10;
	m.decls[1].nested_sum = 3000;
	m.decls[2].parent = 2;
	m.decls[2].nested = 20;
	m.decls[2].nested_sum = 1000;
	m.decls[3].parent = EXTPROF_PARENT_SEVERAL;
	m.decls[3].nested = 20;
	m.decls[3].nested_sum = 400;
	m.decls[0].inner = 15;
	m.decls[0].inner_sum = 3000 + 100;
	m.decls[1].inner = 35;
	m.decls[1].inner_sum = 1000 + 300;
	m.hdr->run_total = 20000;
	xt_finish(&m, true);
	return path;
}

/* The text report, without colour. */
static int text_plain(const struct xp_report *r, FILE *out)
{
	return xp_report_text(r, out, false);
}

/* nesting_dump()'s stacks, folded: each callee under its caller, "both" in each of its two. */
static const char nesting_folded[] = "outer@prog 6900\n"
				     "outer@prog;mid@prog 1700\n"
				     "outer@prog;mid@prog;leaf@prog 1000\n"
				     "outer@prog;mid@prog;both@prog 300\n"
				     "outer@prog;both@prog 100\n"
				     "(not hooked) 10000\n";

/* A callee under its caller, its share of several callers from their inner: exact. */
Test(export, nesting_is_drawn_as_stacks)
{
	char *path = nesting_dump(), *folded, *cg, *cgpath, *ann, *text;
	struct xp_report r;
	size_t len;

	build(&r, path);
	cr_assert(r.nesting);
	folded = render(&r, xp_report_folded, &len);
	cr_expect_str_eq(folded, nesting_folded);
	/* callgrind: outer's inclusive cost is its cost, 50 % of the run */
	cg = render(&r, xp_report_callgrind, &len);
	expect_callgrind_lines(cg, len);
	cgpath = xt_path(xt_dir, "nesting.cg");
	spit_text(cgpath, cg, len);
	ann = annotate(cgpath, "Cost --inclusive=yes");
	cr_expect(strstr(ann, "10,000 (50.00%)  ???:outer [prog]"), "%s", ann);
	cr_expect(strstr(ann, "3,000 (15.00%)  ???:mid [prog]"), "%s", ann);
	cr_expect(strstr(ann, "20,000 (100.0%)  PROGRAM TOTALS"), "%s", ann);
	free(ann);
	/* the text report says where each ran, and each one's self */
	text = render(&r, text_plain, &len);
	cr_expect(strstr(text, "    self   cost 6,900 (34.5%)  observed 6,900 (34.5%)"), "%s",
		  text);
	cr_expect(strstr(text, "    in outer@prog   evaluations 5  cost 100  observed 100\n"), "%s",
		  text);
	cr_expect(strstr(text, "    in mid@prog   evaluations 15  cost 300  observed 300\n"), "%s",
		  text);
	free(text);
	free(cgpath);
	free(cg);
	free(folded);
	xp_report_free(&r);
	free(path);
}

/* Hostile names in the folded stacks: one line a frame path, split where readers split. */
Test(export, folded_hostile_names)
{
	char *longsym = long_symbol(), *path = hostile_dump(longsym), *folded;
	struct xp_report r;
	size_t len, lines = 0;

	build(&r, path);
	folded = render(&r, xp_report_folded, &len);
	cr_expect(strstr(folded, "main?next@prog;caller \"one\"@obj with space;new?line@"),
		  "%s", folded);
	for (char *line = folded; *line; lines++) {
		char *nl = strchr(line, '\n'), *sp;

		cr_assert(nl, "the last line has no newline");
		*nl = '\0';
		sp = strrchr(line, ' ');
		cr_assert(sp && sp[1] >= '1' && sp[1] <= '9', "no value at the end: %s", line);
		for (char *p = line; *p; p++)
			cr_assert((unsigned char)*p >= 0x20, "a control character in %s", line);
		line = nl + 1;
	}
	/* each declaration under its two callers, and what no hooked function took */
	cr_expect_eq(lines, NHOSTILE + (r.run_total > 0));
	free(folded);
	xp_report_free(&r);
	free(path);
	free(longsym);
}

/* Hostile names in the page: escaped in the table, and unable to close the data's script. */
Test(export, html_hostile_names)
{
	static const struct dump_decl_info decls[] = {
		{"function", "</script><script>alert(1)</script>", "prog", 0x100},
		{"function", "a&b<c>\"d'", "prog", 0x200},
	};
	char *path = xt_path(xt_dir, "page.xpd"), *page;
	struct dump_meta meta;
	struct dump_map m;
	struct xp_report r;
	size_t len;

	xt_meta(&meta, NULL, 0, 88, 0x88);
	xt_create(&m, path, &meta, decls, 2, 0);
	xt_record(&m, 0, 10, 3);
	xt_record(&m, 1, 20, 3);
	m.hdr->run_total = 1000;
	xt_finish(&m, true);
	build(&r, path);
	page = render(&r, xp_report_html, &len);
	cr_expect(!strstr(page, "<script>alert"), "a name closed a script");
	cr_expect(strstr(page, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;@prog"),
		  "the table's cell");
	cr_expect(strstr(page, "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"),
		  "the flame graph's data");
	cr_expect(strstr(page, "a&amp;b&lt;c&gt;&quot;d&#39;@prog"));
	cr_expect(!strstr(page, "http://") && !strstr(page, "https://"), "the page fetches");
	/* one script of ours, one of data */
	cr_expect_eq(strstr(strstr(page, "<script>") + 1, "<script>"), NULL);
	free(page);
	xp_report_free(&r);
	free(path);
}

/* Runs made into one (run --repeat) keep their nesting: the median of the runs'. */
Test(export, nesting_of_repeated_runs)
{
	char *path = nesting_dump(), *folded;
	struct xp_report runs[3], r;
	struct xp_err e = {""};
	size_t len;

	for (int i = 0; i < 3; i++)
		build(&runs[i], path);
	cr_assert_eq(xp_report_repeat(&r, runs, 3, 0, &e), 0, "%s", e.msg);
	cr_expect(r.nesting);
	folded = render(&r, xp_report_folded, &len);
	cr_expect_str_eq(folded, nesting_folded);
	free(folded);
	xp_report_free(&r);
	for (int i = 0; i < 3; i++)
		xp_report_free(&runs[i]);
	free(path);
}
